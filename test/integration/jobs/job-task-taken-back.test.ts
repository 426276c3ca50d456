import { expect } from 'chai';
import { PgBossTaskQueue } from '../../../src/adapters/queue/pg-boss-task-queue.js';
import { INTERRUPTED, RunJob, takenBackError } from '../../../src/application/jobs/run-job.js';
import type { JobRunTask } from '../../../src/application/jobs/create-job.js';
import type { Job } from '../../../src/domain/jobs/job.js';
import type { JobReport, JobRunner } from '../../../src/ports/job-runner.js';
import { FixedClock } from '../../fakes/fixed-clock.js';
import { InMemoryJobRepository } from '../../fakes/in-memory-job-repository.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';
import { logger, queueStoreDir, settings } from '../../contract/task-queue.harness.js';
import { openPglite } from '../../support/data-dirs.js';
import { waitFor } from '../../support/http.js';

/*
 * The job-run worker as src/container/gateway.ts wires it, on the pg-boss queue: a task the queue
 * takes back while its job runs (its time limit, or, on PostgreSQL, its claim lost after
 * QUEUE_HEARTBEAT_SECONDS without a heartbeat: a replica cut off from the database) stops the job's
 * agent at once, as the TaskQueue port promises; the next attempt finds a stopped run. Shown with
 * the queue's time limit (the `short` queue of the task-queue harness: 1 s), the same take-back.
 */
const ID = '00000000-0000-4000-8000-0000000000bb';

describe('RunJob on the pg-boss queue: a job-run task taken back while its job runs', function () {
  this.timeout(60_000);

  it('stops the run of the task taken back at once, keeps what it reported, and marks the job failed', async () => {
    const pglite = await openPglite(await queueStoreDir());
    const queue = await PgBossTaskQueue.start({ pglite }, settings, logger);
    try {
      const jobs = new InMemoryJobRepository();
      const now = new Date();
      const job: Job = {
        id: ID,
        job: 'Do it',
        status: 'queued',
        source: { kind: 'api' },
        llmProvider: null,
        llmModel: null,
        branch: `job/${ID}`,
        prUrl: null,
        runUrl: null,
        summary: null,
        error: null,
        log: null,
        createdAt: now,
        updatedAt: now,
      };
      await jobs.add(job);
      const runs: AbortSignal[] = [];
      let reported = false;
      const runner: JobRunner = {
        kind: 'local',
        async run(_job: Job, report: JobReport, signal: AbortSignal) {
          runs.push(signal);
          // The agent works until it is stopped: only the abort of its signal ends it, then it reports.
          await new Promise<void>((done) => signal.addEventListener('abort', () => done(), { once: true }));
          await report({ summary: 'stopped', log: 'step one\n' });
          reported = true;
        },
      };
      const runJob = new RunJob(jobs, runner, new FixedClock(), new RecordingLogger());
      const attempts: number[] = [];
      await queue.work<JobRunTask>('short', (task, { attempt, signal }) => {
        attempts.push(attempt);
        return runJob.execute(task, { attempt, signal });
      });
      await queue.enqueue('short', { jobId: ID });
      // Never reported unless the take-back aborts the run's signal.
      await waitFor(() => reported, 15_000, 'the run of the task taken back to be stopped and report');
      expect(runs[0].aborted, 'the run of the task taken back was stopped').to.equal(true);
      await waitFor(() => attempts.length >= 2, 15_000, 'the next attempt');
      expect(runs, 'run once').to.have.length(1);
      const final = await jobs.get(ID);
      expect(final).to.include({ status: 'failed', summary: 'stopped', log: 'step one\n' });
      expect(final?.error).to.satisfy((error: string) => error === INTERRUPTED || error.startsWith(takenBackError('the task queue took this task back')));
    } finally {
      await queue.stop(1000);
      await pglite.close();
    }
  });
});
