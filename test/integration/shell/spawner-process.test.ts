import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readOutcome } from '../../../src/adapters/shell/left-outcome.js';
import { SpawnerShellExecutor } from '../../../src/adapters/shell/spawner/spawner-shell-executor.js';
import { ROOT, tempDir } from '../../support/gateway-process.js';
import { waitFor } from '../../support/http.js';
import { within } from '../../support/time-limit.js';

const ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
/** The spawner's pid (the shell's parent) and the names of the variables in the spawner's own environment. */
const WHO_RUNS = 'echo "$PPID $(tr "\\0" "\\n" < /proc/$PPID/environ | cut -d= -f1 | tr "\\n" ,)"';

/** Whether a process is still there (a zombie waiting for its parent counts as gone). */
const alive = async (pid: number): Promise<boolean> => {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  return stat !== null && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
};

const waitUntilGone = (pid: number): Promise<boolean> => waitFor(async () => !(await alive(pid)), 15_000, `process ${pid} to end`);

/** What a command writes to started.txt in `cwd` once it has started (whole once it ends with a newline). */
const startedLine = (cwd: string): Promise<string> =>
  waitFor(
    async () => {
      const text = await readFile(join(cwd, 'started.txt'), 'utf8').catch(() => '');
      return text.endsWith('\n') ? text : '';
    },
    15_000,
    'the command to start',
  );

/**
 * A process using the built executor the way the service does: it runs WHO_RUNS, prints the
 * answer, then ends by itself (`exit`) or waits to be killed (`hang`).
 */
const userProcess = (mode: 'exit' | 'hang') => {
  const module = pathToFileURL(join(ROOT, 'dist', 'adapters', 'shell', 'spawner', 'spawner-shell-executor.js')).href;
  const script = `
    const { SpawnerShellExecutor } = await import(${JSON.stringify(module)});
    const run = await new SpawnerShellExecutor().run(${JSON.stringify(WHO_RUNS)}, { cwd: '/', timeoutMs: 10000, env: ${JSON.stringify(ENV)} });
    console.log(run.output.trim());
    if (${JSON.stringify(mode)} === 'hang') setInterval(() => undefined, 1000);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...ENV, SERVICE_SECRET: 'not for the spawner' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const firstLine = new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0]);
    });
    child.once('exit', (code) => reject(new Error(`the user process exited (${code}) before printing`)));
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, firstLine, exited };
};

/** Records the spawner's and its own pid in started.txt, then waits for the file go (at most 10 s: it must not outlive a failed test). */
const WAITS_FOR_GO = 'echo $PPID $$ > started.txt; i=0; while [ ! -e go ] && [ $i -lt 500 ]; do sleep 0.02; i=$((i+1)); done; ';

describe('SpawnerShellExecutor: its spawner process', function () {
  this.timeout(60_000);
  const started: number[] = [];
  const groups: number[] = [];
  afterEach(() => {
    for (const pid of [...started.splice(0), ...groups.splice(0).map((group) => -group)]) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone, as it should be
      }
    }
  });

  it('holds none of the service’s environment, and does not keep the service running once commands are done', async () => {
    const user = userProcess('exit');
    if (user.child.pid) started.push(user.child.pid);
    const [pid, variables] = (await user.firstLine).split(' ');
    const spawnerPid = Number(pid);
    started.push(spawnerPid);
    // only what Node itself sets to hand the IPC channel over
    expect(
      variables.split(',').filter((name) => name !== '' && !name.startsWith('NODE_CHANNEL_')),
      'the spawner’s own variables',
    ).to.deep.equal([]);
    expect(await user.exited, 'the user process ended by itself').to.equal(0);
    await waitUntilGone(spawnerPid);
  });

  it('does not outlive a service killed with SIGKILL', async () => {
    const user = userProcess('hang');
    if (user.child.pid) started.push(user.child.pid);
    const spawnerPid = Number((await user.firstLine).split(' ')[0]);
    started.push(spawnerPid);
    expect(await alive(spawnerPid)).to.equal(true);
    user.child.kill('SIGKILL');
    await user.exited;
    await waitUntilGone(spawnerPid);
  });

  it('fails the commands of a spawner that dies, saying so, and runs the next command in a new one', async () => {
    const shell = new SpawnerShellExecutor();
    try {
      const cwd = await tempDir('spawner');
      const first = await shell.run(WHO_RUNS, { cwd, timeoutMs: 10_000, env: ENV });
      const spawnerPid = Number(first.output.split(' ')[0]);
      started.push(spawnerPid);
      const running = shell.run('echo $$ > started.txt; sleep 30', { cwd, timeoutMs: 60_000, env: ENV });
      const command = await startedLine(cwd);
      // the command's process group, left running by the killed spawner (as by a killed service)
      groups.push(Number(command));
      process.kill(spawnerPid, 'SIGKILL');
      const error = await running.then(
        () => null,
        (e: Error) => e,
      );
      expect(error?.message).to.equal('the spawner process running the command stopped (SIGKILL); the command may have run');
      const next = await shell.run(WHO_RUNS, { cwd, timeoutMs: 10_000, env: ENV });
      const nextPid = Number(next.output.split(' ')[0]);
      started.push(nextPid);
      expect(next.exitCode).to.equal(0);
      expect(nextPid).to.not.equal(spawnerPid);
    } finally {
      await shell.close();
    }
  });

  it('outlasts a Ctrl-C or SIGTERM sent to the whole process group: the running command still reports its outcome', async () => {
    const shell = new SpawnerShellExecutor();
    try {
      const cwd = await tempDir('spawner');
      // waits for the file go, at most 10 s (it must not outlive a failed test)
      const running = shell.run(`${WAITS_FOR_GO}echo finished`, {
        cwd,
        timeoutMs: 20_000,
        env: ENV,
      });
      const [spawnerPid, command] = (await startedLine(cwd)).split(' ').map(Number);
      started.push(spawnerPid);
      groups.push(command);
      for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.kill(spawnerPid, signal);
      await writeFile(join(cwd, 'go'), '');
      const run = await running;
      expect(run).to.include({ exitCode: 0, output: 'finished\n' });
      expect(await alive(spawnerPid), 'the spawner, still there for the next command').to.equal(true);
    } finally {
      await shell.close();
    }
  });

  it('close waits for running commands, then stops the spawner', async () => {
    const shell = new SpawnerShellExecutor();
    const cwd = await tempDir('spawner');
    const running = shell.run(`${WHO_RUNS}; sleep 0.3; echo finished`, { cwd, timeoutMs: 10_000, env: ENV });
    const closed = shell.close();
    const run = await running;
    await closed;
    const spawnerPid = Number(run.output.split(' ')[0]);
    started.push(spawnerPid);
    expect(run.output).to.match(/finished\n$/);
    expect(await alive(spawnerPid)).to.equal(false);
  });

  for (const [passing, signal] of [
    ['', undefined],
    // The task queue passes a trigger's or a schedule's command a signal it does not abort at a stop.
    [', also when its caller passes a signal (a trigger command run by the task queue)', new AbortController().signal],
  ] as const)
    it(`close with a wait returns, leaving a command still running to finish: the spawner stays until it ends (its output still read), leaves its outcome beside its start mark, then exits${passing}`, async () => {
      const shell = new SpawnerShellExecutor();
      const cwd = await tempDir('spawner');
      const mark = join(cwd, 'run.0');
      // waits for the file go, at most 10 s (it must not outlive a failed test), then writes output:
      // with no reader left, the shell would die of SIGPIPE there and never write finished.txt
      let settled = false;
      void shell
        .run(`${WAITS_FOR_GO}echo "output after the stop"; echo finished > finished.txt; exit 3`, {
          cwd,
          timeoutMs: 20_000,
          env: ENV,
          startMark: mark,
          ...(signal === undefined ? {} : { signal }),
        })
        .finally(() => (settled = true));
      const [spawnerPid, command] = (await startedLine(cwd)).split(' ').map(Number);
      started.push(spawnerPid);
      groups.push(command);
      await shell.close(200);
      expect(await alive(spawnerPid), 'the spawner stays with its command').to.equal(true);
      expect(await readOutcome(mark), 'no outcome while it runs').to.equal(null);
      await writeFile(join(cwd, 'go'), '');
      expect(await waitFor(() => readFile(join(cwd, 'finished.txt'), 'utf8').catch(() => ''), 15_000, 'the command to finish')).to.equal('finished\n');
      expect(await waitUntilGone(spawnerPid), 'the spawner exits once its command ended').to.equal(true);
      const left = await readOutcome(mark);
      expect(left).to.include({ exitCode: 3, timedOut: false, aborted: false });
      expect(left?.output).to.equal('output after the stop\n');
      expect(settled, 'its caller got no outcome (the service is stopping)').to.equal(false);
    });

  it('keeps the time limit of a command it was left with: killed at its timeout, its outcome left as timed out', async () => {
    const shell = new SpawnerShellExecutor();
    const cwd = await tempDir('spawner');
    const mark = join(cwd, 'run.1');
    void shell.run('echo $PPID $$ > started.txt; sleep 30 & wait', { cwd, timeoutMs: 1500, env: ENV, startMark: mark }).catch(() => undefined);
    const [spawnerPid, command] = (await startedLine(cwd)).split(' ').map(Number);
    started.push(spawnerPid);
    groups.push(command);
    await shell.close(0);
    expect(await waitUntilGone(spawnerPid), 'the spawner exits once its command was killed').to.equal(true);
    expect(await alive(command), 'the command was killed at its time limit').to.equal(false);
    expect(await readOutcome(mark)).to.include({ exitCode: null, timedOut: true });
  });

  it('close with a wait still answers a command its caller can abort (a job stopped when the grace period is over): aborted before or after the wait ran out, it is killed and its caller gets the outcome; then the spawner exits', async () => {
    const shell = new SpawnerShellExecutor();
    const cwd = await tempDir('spawner');
    const command = async (name: string, signal: AbortSignal) => {
      const run = shell.run(`echo $PPID $$ > ${name}.txt; sleep 30`, { cwd, timeoutMs: 60_000, env: ENV, signal });
      const line = await waitFor(
        () =>
          readFile(join(cwd, `${name}.txt`), 'utf8').then(
            (text) => (text.endsWith('\n') ? text : ''),
            () => '',
          ),
        15_000,
        `${name} to start`,
      );
      const [spawnerPid, pid] = line.split(' ').map(Number);
      started.push(spawnerPid);
      groups.push(pid);
      return { run, spawnerPid, pid };
    };
    const before = new AbortController();
    const after = new AbortController();
    const early = await command('early', before.signal);
    const late = await command('late', after.signal);
    // Aborted as the wait runs out (Gateway.stop aborts the running jobs then), and after it.
    before.abort();
    await shell.close(0);
    after.abort();
    // Bounded: unanswered, the callers would wait for good (their commands, killed or not, end after 30 s).
    let timer: NodeJS.Timeout | undefined;
    const outcomes = await Promise.race([
      Promise.all([early.run, late.run]),
      new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), 10_000))),
    ]).finally(() => clearTimeout(timer));
    expect(outcomes, 'the outcomes of the aborted commands').to.not.equal(null);
    for (const run of outcomes ?? []) expect(run).to.include({ aborted: true, timedOut: false });
    expect(await alive(early.pid), 'the command aborted as the wait ran out was killed').to.equal(false);
    expect(await alive(late.pid), 'the command aborted after the wait was killed').to.equal(false);
    expect(await waitUntilGone(early.spawnerPid), 'the spawner exits once they ended').to.equal(true);
  });

  it("close with a wait still answers a command without a start mark that its caller cannot abort (a job's git step as the grace period ends): once it ends its caller gets the outcome, then the spawner exits", async () => {
    const shell = new SpawnerShellExecutor();
    const cwd = await tempDir('spawner');
    // waits for the file go (at most 10 s: it must not outlive a failed test), then ends with 0
    const step = shell.run(`${WAITS_FOR_GO}echo committed`, {
      cwd,
      timeoutMs: 20_000,
      env: ENV,
    });
    const [spawnerPid, command] = (await startedLine(cwd)).split(' ').map(Number);
    started.push(spawnerPid);
    groups.push(command);
    await shell.close(200);
    await writeFile(join(cwd, 'go'), '');
    // Bounded: unanswered, its caller (the job's runner) would wait for good, and the task queue's stop with it.
    const outcome = await within(10_000, "the step's outcome", step);
    expect(outcome).to.include({ exitCode: 0, output: 'committed\n' });
    expect(await waitUntilGone(spawnerPid), 'the spawner exits once its command ended').to.equal(true);
  });

  it('close also waits for a command its caller starts the moment the one before ended (steps of one job), and cuts none off', async () => {
    const shell = new SpawnerShellExecutor();
    const cwd = await tempDir('spawner');
    const steps = (async () => {
      const first = await shell.run(`${WHO_RUNS}; sleep 0.2; echo one`, { cwd, timeoutMs: 10_000, env: ENV });
      started.push(Number(first.output.split(' ')[0]));
      return shell.run('echo two', { cwd, timeoutMs: 10_000, env: ENV });
    })();
    await shell.close();
    expect(await steps).to.include({ exitCode: 0, output: 'two\n' });
  });

  it('runs a command started while close stops the spawner in a new one: the old one ending fails none of its commands', async () => {
    const shell = new SpawnerShellExecutor();
    try {
      const cwd = await tempDir('spawner');
      const first = await shell.run(WHO_RUNS, { cwd, timeoutMs: 10_000, env: ENV });
      const oldPid = Number(first.output.split(' ')[0]);
      started.push(oldPid);
      const closing = shell.close();
      const next = shell.run(WHO_RUNS, { cwd, timeoutMs: 10_000, env: ENV });
      await closing;
      const run = await next;
      const newPid = Number(run.output.split(' ')[0]);
      started.push(newPid);
      expect(run.exitCode).to.equal(0);
      expect(newPid).to.not.equal(oldPid);
    } finally {
      await shell.close();
    }
  });
});
