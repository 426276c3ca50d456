import { execFile, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { migratedDataDir } from '../support/data-dirs.js';
import { ROOT, startGatewayExpectingExit, tempDir } from '../support/gateway-process.js';

const run = promisify(execFile);

/*
 * keepNextTickFast (src/adapters/system/next-tick-shape.ts): V8 remembers the shape of
 * process.nextTick's queue entries weakly; once a garbage collection finds no entry alive, the
 * shapes go, the next entry is built in new ones and every later nextTick takes V8's slow path
 * (~10× dearer). Holding one entry keeps its shapes. What the tests can see without timing
 * anything: entries made after idle collections have the held entry's shape (`%HaveSameMap`,
 * natives syntax), so the shapes V8 remembered are still the ones in use.
 */

/** A script fragment (synchronous; `createHook` of node:async_hooks in scope): `fresh` becomes an entry nextTick makes now. */
const CATCH_FRESH_ENTRY = `
  let fresh;
  const hook = createHook({ init(_id, type, _trigger, resource) { if (type === 'TickObject') fresh ??= resource; } }).enable();
  process.nextTick(() => {});
  hook.disable();
  const sameShape = (a, b) => a !== undefined && b !== undefined && new Function('a', 'b', 'return %HaveSameMap(a, b)')(a, b);
`;

describe('process.nextTick keeps the shapes of its queue entries (keepNextTickFast)', function () {
  this.timeout(90_000);

  it('holds one entry, and entries made after idle garbage collections share its shape', async () => {
    const script = `
      const { createHook } = await import('node:async_hooks');
      const { keepNextTickFast, heldNextTickEntry } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'src/adapters/system/next-tick-shape.ts')).href)});
      const kept = keepNextTickFast();
      const held = heldNextTickEntry();
      // Ticks, then collections while no entry is alive (forced here: which natural ones do it
      // depends on when they run, docs/architecture.md).
      for (let i = 0; i < 50; i++) await new Promise((resolve) => process.nextTick(resolve));
      for (let i = 0; i < 5; i++) {
        // The next turn of the event loop: the queue has run, no entry is alive.
        await new Promise((resolve) => setImmediate(resolve));
        globalThis.gc();
      }
      ${CATCH_FRESH_ENTRY}
      process.stdout.write(JSON.stringify({ kept, held: held !== undefined, again: keepNextTickFast() && heldNextTickEntry() === held, sameShape: sameShape(held, fresh) }));
    `;
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--allow-natives-syntax', '--expose-gc', '--input-type=module', '--eval', script], {
      cwd: ROOT,
      env: { ...process.env, NODE_OPTIONS: '' },
      timeout: 50_000,
    });
    expect(JSON.parse(stdout)).to.deep.equal({ kept: true, held: true, again: true, sameShape: true });
  });

  it('the service holds one from its start: after its start-up, entries still have the held shape', async () => {
    const dir = await migratedDataDir('next-tick-shape');
    // Loaded before dist/main.js; looks when the service is told to stop (its own handler runs after).
    const probe = join(await tempDir('next-tick-probe'), 'probe.mjs');
    await writeFile(
      probe,
      `import { createHook } from 'node:async_hooks';
      const shape = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist/adapters/system/next-tick-shape.js')).href)});
      process.once('SIGTERM', () => {
        globalThis.gc();
        globalThis.gc();
        ${CATCH_FRESH_ENTRY}
        const held = shape.heldNextTickEntry();
        process.stderr.write('NEXT_TICK_SHAPE ' + JSON.stringify({ held: held !== undefined, sameShape: sameShape(held, fresh) }) + '\\n');
      });
      `,
    );
    const stopWhenListening = (child: ChildProcess): void => {
      // Read line by line beside runToExit's own reader (never paused: the service's output keeps flowing).
      let signalled = false;
      createInterface({ input: child.stdout! }).on('line', (line) => {
        if (signalled || !line.includes('"agent gateway listening"')) return;
        signalled = true;
        child.kill('SIGTERM');
      });
    };
    const result = await startGatewayExpectingExit(
      { DATA_DIR: dir, TRIGGERS_FILE: join(dir, 'none.json') },
      { nodeArgs: ['--allow-natives-syntax', '--expose-gc', '--import', probe], onSpawn: stopWhenListening, timeoutMs: 80_000 },
    );
    expect(result.code, result.stderr).to.equal(0);
    const line = result.stderr.split('\n').find((text) => text.startsWith('NEXT_TICK_SHAPE '));
    expect(line, result.stderr).to.not.equal(undefined);
    expect(JSON.parse(line!.slice('NEXT_TICK_SHAPE '.length))).to.deep.equal({ held: true, sameShape: true });
  });
});
