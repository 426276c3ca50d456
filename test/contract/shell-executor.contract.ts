import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { open, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ShellExecutor } from '../../src/ports/shell-executor.js';
import { tempDir } from '../support/gateway-process.js';
import { waitFor } from '../support/http.js';

const ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

/** Whether a process is still there (a zombie waiting for its parent counts as gone). */
const alive = async (pid: number): Promise<boolean> => {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  return stat !== null && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
};

/**
 * The processes still there whose environment holds `mark` (a variable given to one command
 * only): the command's shell and everything it started, whatever their pids and groups.
 */
const runningWith = async (mark: string): Promise<number[]> => {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const environ = await readFile(`/proc/${entry}/environ`, 'latin1').catch(() => '');
    if (environ.split('\0').includes(mark) && (await alive(Number(entry)))) found.push(Number(entry));
  }
  return found;
};

let marks = 0;
/** An environment whose mark (see runningWith) no other command carries. */
const markedEnv = (): { env: Record<string, string>; mark: string } => {
  const value = `${process.pid}-${++marks}`;
  return { env: { ...ENV, AGW_CONTRACT_RUN: value }, mark: `AGW_CONTRACT_RUN=${value}` };
};

/**
 * Waits until no process of the command is left (15 s at most: killed processes end at once, a
 * loaded machine aside). Those left then are killed before the test fails: none outlives it.
 */
const allGone = async (mark: string): Promise<void> => {
  try {
    await waitFor(async () => (await runningWith(mark)).length === 0, 15_000, `every process of the command (${mark}) to be gone`);
  } catch (error) {
    const left = await runningWith(mark);
    for (const pid of left) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // ended meanwhile
      }
    }
    throw new Error(`${(error as Error).message}; still running: ${left.join(', ')}`);
  }
};

/** The pids a command wrote to pids.txt in `cwd` (`echo $$ $! > pids.txt`: its shell's, its background child's) once the line is whole. */
const writtenPids = (cwd: string): Promise<number[]> =>
  waitFor(
    async () => {
      const text = await readFile(join(cwd, 'pids.txt'), 'utf8').catch(() => '');
      return text.endsWith('\n') ? text.trim().split(' ').map(Number) : undefined;
    },
    15_000,
    'the command to write its pids',
  );

/**
 * The behaviour every ShellExecutor adapter must have. `close` releases what an adapter holds
 * (a process of its own) after each test. `ownPidNamespace`: the command runs in a PID namespace
 * of its own (a sandbox), so the pids it writes mean nothing here; its processes are still
 * found, and seen gone, by their environment.
 */
export const describeShellExecutorContract = <T extends ShellExecutor>(
  name: string,
  make: () => T,
  close: (shell: T) => Promise<void> = async () => undefined,
  { ownPidNamespace = false }: { readonly ownPidNamespace?: boolean } = {},
): void => {
  describe(`ShellExecutor contract: ${name}`, () => {
    let shell: T;
    let cwd: string;
    beforeEach(async () => {
      shell = make();
      cwd = await tempDir('shell');
    });
    afterEach(() => close(shell));

    it('runs the command line with /bin/sh in the given directory', async () => {
      const run = await shell.run('echo "$0" > which.txt && pwd', { cwd, timeoutMs: 5000, env: ENV });
      expect(run).to.include({ exitCode: 0, timedOut: false });
      expect(run.output.trim()).to.equal(cwd);
      expect((await readFile(join(cwd, 'which.txt'), 'utf8')).trim()).to.equal('/bin/sh');
    });

    it('creates the start mark before the command runs, and leaves the command its own environment and line numbers', async () => {
      const mark = join(cwd, 'started.mark');
      const run = await shell.run('test -e started.mark && echo "marked"; env | grep -c AGW_START_; no-such-command-here', {
        cwd,
        timeoutMs: 5000,
        env: ENV,
        startMark: mark,
      });
      expect(run.output).to.match(/^marked\n0\n/);
      expect(run.output).to.match(/(line |: )1: no-such-command-here/);
      expect(await readFile(mark, 'utf8')).to.equal('');
    });

    it("writes a retry's number into its start mark, replacing what an earlier attempt wrote; a first attempt's mark stays empty", async () => {
      const mark = join(cwd, 'retried.mark');
      const marked = async (startAttempt: number): Promise<string> => {
        const run = await shell.run('env | grep -c AGW_START_', { cwd, timeoutMs: 5000, env: ENV, startMark: mark, startAttempt });
        expect(run.output, 'the command sees none of the variables').to.equal('0\n');
        return readFile(mark, 'utf8');
      };
      expect(await marked(1)).to.equal('');
      expect(await marked(2)).to.equal('2');
      expect(await marked(10)).to.equal('10');
      expect(await marked(3)).to.equal('3');
    });

    it('runs nothing and exits 125 saying why when the start mark cannot be written; a hostile mark path stays a path', async () => {
      const hostile = join(cwd, 'missing dir', '$(touch pwned); `touch pwned2`');
      const run = await shell.run('touch ran', { cwd, timeoutMs: 5000, env: ENV, startMark: hostile });
      expect(run.exitCode).to.equal(125);
      expect(run.output).to.contain('the start mark');
      for (const file of ['ran', 'pwned', 'pwned2']) expect(await readFile(join(cwd, file)).catch(() => null), file).to.equal(null);
    });

    it('reports a failing exit code without throwing, with stdout and stderr', async () => {
      const run = await shell.run('echo out; echo err >&2; exit 7', { cwd, timeoutMs: 5000, env: ENV });
      expect(run.exitCode).to.equal(7);
      expect(run.output).to.contain('out').and.to.contain('err');
    });

    it('kills a command and what it started at the timeout', async () => {
      const started = Date.now();
      const { env, mark } = markedEnv();
      const run = await shell.run('sleep 30 & echo $$ $! > pids.txt; sleep 30', { cwd, timeoutMs: 300, env });
      expect(run).to.include({ timedOut: true, exitCode: null });
      // killed, not waited for: far less than the 30 s the commands would take (any machine load aside)
      expect(Date.now() - started).to.be.below(20_000);
      // The shell and its background sleep, whether or not the shell got to write their pids before the timeout.
      await allGone(mark);
    });

    it('kills at the timeout what a command left running in the background, though its shell ended before', async () => {
      const { env, mark } = markedEnv();
      // The background sleep keeps no output open: the run ends with its shell.
      const run = await shell.run('sleep 30 >/dev/null 2>&1 & echo $! > pids.txt', { cwd, timeoutMs: 1000, env });
      expect(run).to.include({ exitCode: 0, timedOut: false, aborted: false });
      // Within the timeout (and the 15 s allGone waits), not the 30 s the sleep would take.
      await allGone(mark);
    });

    it('kills a command and what it started when the caller aborts, and says so', async () => {
      const controller = new AbortController();
      const { env, mark } = markedEnv();
      const running = shell.run('sleep 30 & echo $$ $! > pids.txt; sleep 30', { cwd, timeoutMs: 60_000, env, signal: controller.signal });
      // aborted once the command is seen running, not after a guessed delay
      const pids = await writtenPids(cwd);
      expect(pids).to.have.lengthOf(2);
      const seen = ownPidNamespace ? [] : pids;
      if (ownPidNamespace) expect(await runningWith(mark), 'processes of the command before the abort').to.have.length.of.at.least(2);
      for (const pid of seen) expect(await alive(pid), `process ${pid} before the abort`).to.equal(true);
      controller.abort();
      const run = await running;
      expect(run).to.include({ aborted: true, timedOut: false, exitCode: null });
      await allGone(mark);
      for (const pid of seen) expect(await alive(pid), `process ${pid} after the abort`).to.equal(false);
    });

    describe("a process that left the command's group (setsid) and holds its output", () => {
      // It waits on a FIFO that the test closes afterwards, so that it ends with the test.
      let fifo: string;
      beforeEach(async () => {
        fifo = join(cwd, 'hold.fifo');
        await new Promise<void>((resolve, reject) => execFile('mkfifo', [fifo], (error) => (error ? reject(error) : resolve())));
      });
      afterEach(async () => {
        // Opening the FIFO for writing and closing it ends the held process's read; with no
        // reader left (it ended, or never started), the open fails at once instead of waiting.
        const writer = await open(fifo, constants.O_WRONLY | constants.O_NONBLOCK).catch(() => undefined);
        await writer?.close();
      });
      const holder = `setsid sh -c 'cat "$1" >/dev/null; echo late' sh ${'"$FIFO"'} &`;

      it("does not hold the run once the shell exited: the run ends with the shell's code and output", async () => {
        const run = await shell.run(`${holder} echo started; exit 3`, { cwd, timeoutMs: 60_000, env: { ...ENV, FIFO: fifo } });
        expect(run).to.include({ exitCode: 3, timedOut: false, aborted: false });
        expect(run.output).to.contain('started').and.not.to.contain('late');
      });

      it('does not hold a run past its timeout', async () => {
        const run = await shell.run(`${holder} sleep 60`, { cwd, timeoutMs: 300, env: { ...ENV, FIFO: fifo } });
        expect(run).to.include({ timedOut: true, exitCode: null });
      });
    });

    it('kills at once a command whose caller aborted before it started', async () => {
      const { env, mark } = markedEnv();
      const run = await shell.run('sleep 30 & sleep 30; echo never > late.txt', { cwd, timeoutMs: 60_000, env, signal: AbortSignal.abort() });
      expect(run).to.include({ aborted: true, exitCode: null });
      await allGone(mark);
      expect(await readFile(join(cwd, 'late.txt'), 'utf8').catch(() => 'absent')).to.equal('absent');
    });

    it("gives the command exactly the environment it is given, nothing of the service's own", async () => {
      process.env.AGW_CONTRACT_SERVICE_SECRET = 'service-secret-value';
      try {
        const value = 'line one\nline two $(touch pwned) \'q\' "d" \\ ünï 🎉';
        const run = await shell.run('env > env.txt; printf %s "$GIVEN" > given.txt', { cwd, timeoutMs: 5000, env: { ...ENV, GIVEN: value } });
        expect(run.exitCode).to.equal(0);
        const env = await readFile(join(cwd, 'env.txt'), 'utf8');
        expect(env).to.not.contain('AGW_CONTRACT_SERVICE_SECRET').and.to.not.contain('service-secret-value');
        expect(await readFile(join(cwd, 'given.txt'), 'utf8')).to.equal(value);
      } finally {
        delete process.env.AGW_CONTRACT_SERVICE_SECRET;
      }
    });

    it('keeps a character whole in the output when its bytes arrive in two writes', async () => {
      // 🎉 is F0 9F 8E 89: two bytes, a pause (so they arrive apart), then the other two
      const run = await shell.run("printf 'a\\360\\237'; sleep 0.2; printf '\\216\\211b'", { cwd, timeoutMs: 5000, env: ENV });
      expect(run.output).to.equal('a🎉b');
    });

    it('rejects with a clear message, running nothing, when the environment is larger than the system allows', async () => {
      const env: Record<string, string> = { ...ENV };
      for (let i = 1; i <= 40; i++) env[`AGW_ARG_${i}`] = 'x'.repeat(120_000); // 4.8 MB: over Linux's total for arguments and environment
      const error = await shell.run('touch ran.txt', { cwd, timeoutMs: 5000, env }).catch((e: Error) => e);
      expect(error).to.be.instanceOf(Error);
      expect((error as Error).message).to.equal(
        'the command could not start: its environment (the request values it was given) is larger than the system allows (E2BIG)',
      );
      expect(await readFile(join(cwd, 'ran.txt'), 'utf8').catch(() => 'absent')).to.equal('absent');
    });

    it('bounds the output it keeps', async () => {
      const run = await shell.run('head -c 200000 /dev/zero | tr "\\0" a', { cwd, timeoutMs: 5000, env: ENV });
      expect(run.exitCode).to.equal(0);
      expect(run.output.length).to.be.at.most(64 * 1024);
    });

    it("keeps the beginning of a long output, or its end when asked (a job's log: how it ended)", async () => {
      const long = 'echo first; head -c 200000 /dev/zero | tr "\\0" a; echo; echo last';
      const head = await shell.run(long, { cwd, timeoutMs: 5000, env: ENV });
      expect(head.output.startsWith('first\n')).to.equal(true);
      const tail = await shell.run(long, { cwd, timeoutMs: 5000, env: ENV, keep: 'tail' });
      expect(tail.output.endsWith('\nlast\n')).to.equal(true);
      expect(tail.output).not.to.contain('first');
      expect(tail.output.length).to.equal(64 * 1024);
    });

    it("keeps a long output's first and last characters around how many were left out, when asked (how a command started and how it ended)", async () => {
      const long = 'echo first; head -c 200000 /dev/zero | tr "\\0" a; echo; echo last';
      const ends = await shell.run(long, { cwd, timeoutMs: 5000, env: ENV, keep: { head: 10, tail: 20 } });
      expect(ends.output).to.equal(`first\naaaa\n[… 199982 characters left out …]\n${'a'.repeat(14)}\nlast\n`);
      const short = await shell.run('echo first; echo last', { cwd, timeoutMs: 5000, env: ENV, keep: { head: 10, tail: 20 } });
      expect(short.output).to.equal('first\nlast\n');
    });
  });
};
