import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ChildProcessShellExecutor } from '../../../src/adapters/shell/child-process-shell-executor.js';
import { DEFAULT_SHELL_SETTINGS } from '../../../src/adapters/shell/spawn-shell.js';
import { tempDir } from '../../support/gateway-process.js';
import { waitFor } from '../../support/http.js';

const ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

/** Whether a process is still there (a zombie waiting for its parent counts as gone). */
const alive = async (pid: number): Promise<boolean> => {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  return stat !== null && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
};

describe('runShell: a command whose shell ended in time, its output held by what it left running', () => {
  it('keeps the exit code of a shell that ended before the timeout, and kills what held its output at the timeout', async () => {
    // The drain (how long output is awaited once the shell exited) is longer than the timeout:
    // the timeout comes while only the background sleep holds the output.
    const shell = new ChildProcessShellExecutor({ ...DEFAULT_SHELL_SETTINGS, drainMs: 60_000 });
    const cwd = await tempDir('held-output');
    const run = await shell.run('sleep 30 & echo $! > pid.txt; echo done; exit 0', { cwd, timeoutMs: 2000, env: ENV });
    const pid = Number((await readFile(join(cwd, 'pid.txt'), 'utf8')).trim());
    try {
      expect(run).to.include({ exitCode: 0, timedOut: false, aborted: false });
      expect(run.output).to.equal('done\n');
      await waitFor(async () => !(await alive(pid)), 15_000, `the background sleep (${pid}) to be killed`);
    } finally {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  });
});
