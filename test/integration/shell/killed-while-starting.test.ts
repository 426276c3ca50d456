import { expect } from 'chai';
import { chmod, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BwrapSandboxedShell } from '../../../src/adapters/shell/bwrap-sandboxed-shell.js';
import { ChildProcessShellExecutor } from '../../../src/adapters/shell/child-process-shell-executor.js';
import { DEFAULT_SHELL_SETTINGS } from '../../../src/adapters/shell/spawn-shell.js';
import { SpawnerShellExecutor } from '../../../src/adapters/shell/spawner/spawner-shell-executor.js';
import type { ShellExecutor } from '../../../src/ports/shell-executor.js';
import { tempDir } from '../../support/gateway-process.js';
import { waitFor } from '../../support/http.js';

/*
 * A command whose caller aborted before it was handed over is never started. Started only to be
 * killed at once, it raced bubblewrap's own start: under load a kill landing while bwrap made its
 * PID namespace left the namespace's processes running — the command with them (2 of 60 such runs
 * on the 2-core machine at load 7). Seen here through a shell that cannot start: trying it
 * rejects, not trying it answers `aborted`.
 */
const NO_SHELL = { ...DEFAULT_SHELL_SETTINGS, shell: '/nonexistent/agw-test-shell' };
const ENV = { PATH: '/usr/bin:/bin' };

const executors: Array<[string, () => ShellExecutor & { close?(ms?: number): Promise<void> }]> = [
  ['ChildProcessShellExecutor', () => new ChildProcessShellExecutor(NO_SHELL)],
  ['SpawnerShellExecutor', () => new SpawnerShellExecutor(NO_SHELL)],
];

for (const [name, make] of executors) {
  describe(`${name}: a command aborted before it was handed over`, () => {
    let shell: ReturnType<typeof make>;
    beforeEach(() => {
      shell = make();
    });
    afterEach(async () => {
      await shell.close?.(1000);
    });

    it('is not started: aborted, no exit code, no output — the shell is not even tried', async () => {
      const run = await shell.run('echo started', { cwd: '/', timeoutMs: 5000, env: ENV, signal: AbortSignal.abort() });
      expect(run).to.deep.include({ aborted: true, timedOut: false, exitCode: null, output: '' });
    });

    it('is tried when not aborted (the shell that cannot start then fails the run)', async () => {
      const failed = await shell.run('echo started', { cwd: '/', timeoutMs: 5000, env: ENV, signal: new AbortController().signal }).then(
        () => undefined,
        (error: Error) => error,
      );
      expect(failed).to.be.instanceOf(Error);
    });
  });
}

/** Processes whose environment holds `mark` and that are not zombies: `pid comm` each. */
const marked = async (mark: string): Promise<string[]> => {
  const found: string[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const environ = await readFile(`/proc/${entry}/environ`, 'latin1').catch(() => '');
    if (!environ.split('\0').includes(mark)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    if (stat !== '' && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z') found.push(`${entry} ${stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))}`);
  }
  return found;
};

/*
 * bubblewrap, killed while it makes the command's PID namespace, left the namespace running: its
 * first process leaves bwrap's process group (--new-session) and is tied to bwrap's life
 * (--die-with-parent) only once set up, so the group kill of a timeout or an abort landing in
 * between missed it (3 of 60 runs aborted 0–7 ms after their start, with the real bwrap at load
 * 7). A kill now waits for bwrap's report of that process (--info-fd 3) and kills it first. The
 * moment is made certain here by a stand-in for bwrap that starts its "namespace" (a `setsid`
 * process) and reports it only once half a second has passed (after the 300 ms timeout) and the
 * test has seen the namespace (its file `go`). The executor waits for the report however long the
 * machine takes (sandboxReportWaitMs): with the default 2 s, a stand-in started more than 2.3 s
 * after its spawn on a loaded machine was killed before it made its namespace, and the test
 * waited for a namespace that never came.
 */
describe('BwrapSandboxedShell: a kill while the sandbox is being made', () => {
  let shell: SpawnerShellExecutor;
  afterEach(async () => {
    await shell?.close(1000);
  });

  for (const cause of ['abort', 'timeout'] as const) {
    it(`kills the sandbox's first process, reported on fd 3, and everything under it (${cause})`, async () => {
      const root = await tempDir('killed-while-starting');
      const fakeBwrap = join(root, 'bwrap');
      await writeFile(
        fakeBwrap,
        [
          '#!/bin/sh',
          'setsid sleep 30 3>&- &',
          'namespace=$!',
          'sleep 0.5',
          `while [ ! -e '${join(root, 'go')}' ]; do sleep 0.05; done`,
          'printf \'{\\n    "child-pid": %s\\n}\\n\' "$namespace" >&3',
          'exec 3>&-',
          'wait',
          '',
        ].join('\n'),
      );
      await chmod(fakeBwrap, 0o755);
      for (const dir of ['data', 'home', 'service', 'triggers', 'worktree']) await mkdir(join(root, dir));
      shell = new SpawnerShellExecutor({ ...DEFAULT_SHELL_SETTINGS, sandboxReportWaitMs: 600_000 });
      const sandboxed = new BwrapSandboxedShell(shell, {
        bwrap: fakeBwrap,
        dataDir: join(root, 'data'),
        serviceHome: join(root, 'home'),
        serviceCwd: join(root, 'service'),
        runtimeDir: undefined,
        triggersDir: join(root, 'triggers'),
        hiddenFiles: [],
        databaseSocketDirs: [],
        repoDir: join(root, 'worktree'),
        network: 'host',
      });
      const value = `${process.pid}-${cause}`;
      const mark = `AGW_KILLED_WHILE_STARTING=${value}`;
      const controller = new AbortController();
      const running = sandboxed.run('sleep 30', {
        cwd: join(root, 'worktree'),
        timeoutMs: cause === 'timeout' ? 300 : 60_000,
        env: { ...ENV, AGW_KILLED_WHILE_STARTING: value },
        signal: controller.signal,
      });
      // The "namespace" is up, not yet reported.
      await waitFor(async () => (await marked(mark)).some((process) => process.endsWith(' sleep')), 30_000, 'the stand-in to start its namespace');
      if (cause === 'abort') controller.abort();
      await writeFile(join(root, 'go'), '');
      const run = await running;
      expect(run).to.include(cause === 'abort' ? { aborted: true, exitCode: null } : { timedOut: true, exitCode: null });
      try {
        await waitFor(async () => (await marked(mark)).length === 0, 10_000, 'every process of the sandbox to be gone');
      } finally {
        for (const left of await marked(mark)) process.kill(Number(left.split(' ')[0]), 'SIGKILL');
      }
    });
  }
});
