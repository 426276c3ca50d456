import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { type NpmStartedService, processGone, ROOT, startUnderNpm, tempDir } from '../support/gateway-process.js';
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
  let started: NpmStartedService | undefined;
  afterEach(() => {
    started?.killGroup();
    started = undefined;
  });

  it('kill -TERM <npx pid>: the service says why, logs "stopped" and exits, the port free', async () => {
    const dir = await tempDir('npx-serve');
    // npx runs the package's `prepare` (src/build.mjs) the first time: a build that is current is
    // left alone (a full build replaced dist/vendor under the services other tests were starting).
    const stamp = join(ROOT, 'dist', '.build-stamp');
    const built = (await stat(stamp)).mtimeMs;
    started = startUnderNpm('npx', ['agent-gateway', 'serve'], dir);
    const { npm: npx, lines, logged, what } = started;

    // npx ending first (a command it cannot run) fails the test at once, with what it printed.
    let npxEnded = false;
    void started.exited().then(() => {
      npxEnded = true;
    });
    await waitFor(async () => logged('agent gateway listening') !== undefined || npxEnded, 90_000, 'the "agent gateway listening" line');
    expect(npxEnded, `npx ended before the service listened; its output:\n${what()}`).to.equal(false);
    const listening = logged('agent gateway listening')!;
    const pid = listening.pid as number;
    expect(pid, what()).to.be.a('number').and.not.equal(npx.pid);
    expect((await stat(stamp)).mtimeMs, 'dist/ was built again').to.equal(built);

    process.kill(npx.pid!, 'SIGTERM');
    await waitFor(async () => logged('stopped') !== undefined, 30_000, `"stopped" from the service; its output:\n${what()}`);
    // Log lines (JSON), as every line of the service: before, this one and `received SIGTERM, shutting down` were plain text on stderr.
    expect(
      lines.some(
        (line) =>
          typeof line === 'object' && /^the process that started the service under npx \(pid \d+\) has ended: stopping as on SIGTERM$/.test(String(line.msg)),
      ),
      what(),
    ).to.equal(true);
    expect(
      lines.filter((line) => typeof line === 'object' && line.msg === 'shutting down').map((line) => (line as { signal?: unknown }).signal),
      what(),
    ).to.deep.equal(['SIGTERM']);
    await waitFor(async () => processGone(pid), 10_000, `the service (pid ${pid}) to exit`);
  });
});
