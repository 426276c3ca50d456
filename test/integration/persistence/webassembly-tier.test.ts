import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { emptyPgliteDir } from '../../support/data-dirs.js';
import { ROOT } from '../../support/gateway-process.js';

const run = promisify(execFile);

/*
 * Opening the embedded database keeps WebAssembly on V8's baseline compiler for the rest of the
 * process (keepWebAssemblyOnBaseline, docs/architecture.md "Memory of the embedded database"):
 * V8's optimising recompiles of PostgreSQL's hot functions cost the first seconds of every start
 * and load. The flags are process-wide, and this test process already runs with --liftoff-only,
 * so each case runs in a Node.js process of its own, started without it. `--wasm-sync-tier-up`
 * makes V8 optimise a hot function at once instead of in the background, so what it would do is
 * known when the loop ends; `%IsTurboFanFunction` (natives syntax) tells which code a function has.
 */
describe('opening the embedded database: its WebAssembly stays on the baseline compiler', function () {
  this.timeout(60_000);

  /** In a fresh process: opens the embedded engine in `dataDir` first (unless undefined), then runs a hot WebAssembly loop and says whether V8 optimised it. */
  const optimisedAfterHotLoop = async (dataDir: string | undefined): Promise<boolean> => {
    const script = `
      const dataDir = process.env.TIER_DATA_DIR;
      if (dataDir) {
        const { openEngine, closeEngine } = await import(${JSON.stringify(join(ROOT, 'src/adapters/persistence/open-engine.ts'))});
        const { RecordingLogger } = await import(${JSON.stringify(join(ROOT, 'test/fakes/recording-logger.ts'))});
        await closeEngine(await openEngine({ databaseUrl: undefined, dataDir, logger: new RecordingLogger(), shortLived: true }));
      }
      // (func (export "f") (param i32) (result i32) (local i32): the sum of n, n-1, … 1, in a loop
      const bytes = new Uint8Array([0,97,115,109,1,0,0,0,1,6,1,96,1,127,1,127,3,2,1,0,7,5,1,1,102,0,0,
        10,27,1,25,1,1,127,3,64,32,1,32,0,106,33,1,32,0,65,1,107,34,0,13,0,11,32,1,11]);
      const { exports } = new WebAssembly.Instance(new WebAssembly.Module(bytes));
      if (exports.f(3) !== 6) throw new Error('the module does not compute what it should');
      for (let i = 0; i < 200; i++) exports.f(100000);
      process.stdout.write(String(new Function('f', 'return %IsTurboFanFunction(f)')(exports.f)));
    `;
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', '--allow-natives-syntax', '--wasm-sync-tier-up', '--input-type=module', '--eval', script],
      { cwd: ROOT, env: { ...process.env, NODE_OPTIONS: '', TIER_DATA_DIR: dataDir ?? '' }, timeout: 50_000 },
    );
    return JSON.parse(stdout) as boolean;
  };

  it('without it, V8 optimises a hot function (the control: the check below can fail)', async () => {
    expect(await optimisedAfterHotLoop(undefined)).to.equal(true);
  });

  it('after the embedded engine is opened, the same hot function stays on the baseline code', async () => {
    const dataDir = dirname(await emptyPgliteDir('webassembly-tier'));
    expect(await optimisedAfterHotLoop(dataDir)).to.equal(false);
  });
});
