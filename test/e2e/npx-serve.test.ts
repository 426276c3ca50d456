import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ROOT, tempDir } from '../support/gateway-process.js';
import { waitFor } from '../support/http.js';

/*
 * `npx agent-gateway serve`, as docs/first-hour.md starts it: npx runs the command through
 * `sh -c`, and the SIGTERM npm passes on ends that shell; the service, re-parented, went on
 * serving (holding the port and the database) with no npm left to stop it. It now follows the
 * process npm started it under (src/cli/follow-npm.ts).
 */
describe('e2e: `npx agent-gateway serve` stops on a SIGTERM sent to npx', function () {
  this.timeout(120_000);

  // npx leads a process group of its own: whatever it started is killed with it after the test,
  // re-parented or not, whatever the test saw.
  let group: number | undefined;
  afterEach(() => {
    if (group === undefined) return;
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // the group has ended
    }
    group = undefined;
  });

  it('kill -TERM <npx pid>: the service says why, logs "stopped" and exits, the port free', async () => {
    const dir = await tempDir('npx-serve');
    const npx = spawn('npx', ['agent-gateway', 'serve'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? dir,
        DATA_DIR: dir,
        TRIGGERS_FILE: join(dir, 'none.json'),
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    group = npx.pid;
    const lines: Array<Record<string, unknown> | string> = [];
    const read = (line: string): void => {
      try {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        lines.push(line);
      }
    };
    createInterface({ input: npx.stdout! }).on('line', read);
    createInterface({ input: npx.stderr! }).on('line', read);
    const logged = (msg: string): Record<string, unknown> | undefined =>
      lines.find((line): line is Record<string, unknown> => typeof line === 'object' && line.msg === msg);
    const what = (): string => lines.map((line) => JSON.stringify(line)).join('\n');

    await waitFor(async () => logged('agent gateway listening') !== undefined, 90_000, 'the "agent gateway listening" line');
    const listening = logged('agent gateway listening')!;
    const pid = listening.pid as number;
    expect(pid, what()).to.be.a('number').and.not.equal(npx.pid);

    process.kill(npx.pid!, 'SIGTERM');
    await waitFor(async () => logged('stopped') !== undefined, 30_000, `"stopped" from the service; its output:\n${what()}`);
    expect(
      lines.some(
        (line) => typeof line === 'string' && /the process that started the service under npx \(pid \d+\) has ended: stopping as on SIGTERM/.test(line),
      ),
      what(),
    ).to.equal(true);
    const gone = (): boolean => {
      try {
        process.kill(pid, 0);
        return false;
      } catch (error) {
        return (error as NodeJS.ErrnoException).code === 'ESRCH';
      }
    };
    await waitFor(async () => gone(), 10_000, `the service (pid ${pid}) to exit`);
  });
});
