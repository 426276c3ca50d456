import { expect } from 'chai';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { INTERRUPTED, RunTrigger } from '../../../src/application/triggers/run-trigger.js';
import type { TriggerRunTask } from '../../../src/application/triggers/dispatch-trigger-runs.js';
import { ChildProcessShellExecutor } from '../../../src/adapters/shell/child-process-shell-executor.js';
import { FileStartMarks } from '../../../src/adapters/shell/file-start-marks.js';
import { readOutcome } from '../../../src/adapters/shell/left-outcome.js';
import { SpawnerShellExecutor } from '../../../src/adapters/shell/spawner/spawner-shell-executor.js';
import { triggerCatalog } from '../../../src/container/trigger-catalog.js';
import { snapshotRequest } from '../../../src/domain/templates/request-snapshot.js';
import type { ActionRun } from '../../../src/domain/triggers/action-run.js';
import { validateTriggers } from '../../../src/domain/triggers/validate-triggers.js';
import type { HttpForwarder } from '../../../src/ports/http-forwarder.js';
import type { JobLauncher } from '../../../src/ports/job-launcher.js';
import type { ShellExecutor } from '../../../src/ports/shell-executor.js';
import { FixedClock } from '../../fakes/fixed-clock.js';
import { InMemoryActionRunRepository } from '../../fakes/in-memory-action-run-repository.js';
import { InMemoryInboundRequestStore } from '../../fakes/in-memory-inbound-request-store.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';
import { SequentialIds } from '../../fakes/sequential-ids.js';
import { tempDir } from '../../support/gateway-process.js';
import { waitFor } from '../../support/http.js';

const ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
const REQUEST_ID = '20000000-0000-4000-8000-0000000000e1';

/**
 * Counts its attempts in `attempts`; the first fails, the second writes its pids (spawner, shell)
 * to started.txt and waits for the file go (10 s at most: it must not outlive a failed test).
 */
const COMMAND =
  'n=$(cat attempts 2>/dev/null || echo 0); n=$((n+1)); echo $n > attempts; [ $n -gt 1 ] || exit 1; ' +
  'echo $PPID $$ > started.txt; i=0; while [ ! -e go ] && [ $i -lt 500 ]; do sleep 0.02; i=$((i+1)); done; echo "done on attempt $n"';

const { triggers } = validateTriggers(
  [{ name: 'deploy', watch_path: '/webhook', enabled: true, actions: [{ type: 'command', command: COMMAND, retries: 2 }] }],
  'test',
  triggerCatalog(),
);

const alive = async (pid: number): Promise<boolean> => {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  return stat !== null && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
};

describe('a trigger command with retries left running by a stop that did not wait for it (real shell, spawner and start marks)', function () {
  this.timeout(60_000);
  const left: number[] = [];
  afterEach(() => {
    for (const pid of left.splice(0)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone, as it should be
      }
    }
  });

  /** A service's RunTrigger over the records and marks that outlive it. */
  const service = (shell: ShellExecutor, runs: InMemoryActionRunRepository, dir: string): RunTrigger => {
    const requests = new InMemoryInboundRequestStore();
    const request = JSON.stringify(snapshotRequest({}, {}, {}));
    void requests.record({ id: REQUEST_ID, watchPath: '/webhook', receivedAt: new Date(), request, triggers: ['deploy'], runs: [], replayOf: null });
    const forwarder: HttpForwarder = { send: async () => Promise.reject(new Error('no webhook here')) };
    const jobs: JobLauncher = { launch: async () => Promise.reject(new Error('no jobs here')) };
    const settings = { triggersDir: dir, commandTimeoutMs: 30_000, commandEnv: ENV };
    const marks = new FileStartMarks(join(dir, 'run-marks'), 'this-host');
    return new RunTrigger(
      triggers,
      runs,
      requests,
      shell,
      forwarder,
      jobs,
      new SequentialIds(),
      new FixedClock(),
      new RecordingLogger(),
      settings,
      undefined,
      marks,
    );
  };

  /**
   * Runs the task until its second attempt runs, then stops the service without waiting
   * (close(0)): the spawner is let go with the command. Returns what the next start needs.
   */
  const stopDuringSecondAttempt = async () => {
    const dir = await tempDir('retried-at-stop');
    const runs = new InMemoryActionRunRepository();
    const task: TriggerRunTask = {
      runId: '30000000-0000-4000-8000-0000000000e1',
      trigger: 'deploy',
      watchPath: '/webhook',
      firedAt: new Date().toISOString(),
      requestId: REQUEST_ID,
    };
    const shell = new SpawnerShellExecutor();
    void service(shell, runs, dir).execute(task);
    const [spawner, command] = await waitFor(
      async () => {
        const text = await readFile(join(dir, 'started.txt'), 'utf8').catch(() => '');
        return text.endsWith('\n') ? text.split(' ').map(Number) : undefined;
      },
      15_000,
      'the second attempt to start',
    );
    left.push(spawner, -command);
    await shell.close(0);
    const markPath = new FileStartMarks(join(dir, 'run-marks'), 'this-host').place(task.runId, 0).path;
    return { dir, runs, task, spawner, markPath };
  };

  const recorded = (runs: InMemoryActionRunRepository): ActionRun | undefined => runs.runs.find((run) => run.actionIndex === 0);

  it('is recorded with the outcome it left after the stop, as its second attempt', async () => {
    const { dir, runs, task, spawner, markPath } = await stopDuringSecondAttempt();
    await writeFile(join(dir, 'go'), '');
    await waitFor(() => readOutcome(markPath), 15_000, 'the spawner to leave the outcome beside the mark');
    await waitFor(async () => !(await alive(spawner)), 15_000, 'the spawner to exit');
    await service(new ChildProcessShellExecutor(), runs, dir).execute(task);
    expect(recorded(runs)).to.include({ status: 'succeeded', attempts: 2, error: null });
    expect(recorded(runs)?.detail).to.include({ output: 'done on attempt 2\n', endedAfterStop: true });
    expect((await readFile(join(dir, 'attempts'), 'utf8')).trim(), 'no third attempt').to.equal('2');
  });

  it('is recorded interrupted, as its second attempt, when it is still running at the next start', async () => {
    const { dir, runs, task, spawner } = await stopDuringSecondAttempt();
    await service(new ChildProcessShellExecutor(), runs, dir).execute(task);
    expect(recorded(runs)).to.include({ status: 'failed', attempts: 2, error: INTERRUPTED });
    await writeFile(join(dir, 'go'), '');
    await waitFor(async () => !(await alive(spawner)), 15_000, 'the spawner to exit once the command ended');
    expect((await readFile(join(dir, 'attempts'), 'utf8')).trim(), 'no third attempt').to.equal('2');
  });
});
