import type { Clock } from '../../ports/clock.js';
import type { JobRepository } from '../../ports/job-repository.js';
import type { Logger } from '../../ports/logger.js';
import type { TaskQueue } from '../../ports/task-queue.js';
import { JOB_RUN_QUEUE, jobRunKey, type JobRunTask } from './create-job.js';
import { JobScan } from './job-scan.js';

/** A job `queued` for longer than this may have been stored without its task (see RequeueStrandedJobs). */
export const STRANDED_AFTER_MS = 2 * 60_000;
/** The most queued jobs looked at per pass: with more, the next pass goes on where it stopped (JobScan). */
export const STRANDED_PER_PASS = 500;

/**
 * A job is stored, then its task is queued: a process killed between the two, or a task insert
 * that failed for a request with an Idempotency-Key (CreateJobOnce keeps that job `queued`, for
 * the retry with the key to get it and queue its task), leaves the job `queued` with no task
 * until its request comes again — if it ever does. Each pass
 * (at start-up and every few minutes, on any replica) queues the task of every job `queued` for
 * over STRANDED_AFTER_MS again, under the job's own key: a job whose task is stored (the usual
 * case: it waits for a free worker) gets no second one. A job whose task was queued before tasks
 * had keys may get one: RunJob starts a job once whatever the number of its tasks. A pass looks at
 * STRANDED_PER_PASS such jobs at most, oldest first, the next going on after the last one: with a
 * longer backlog each is still looked at every few passes.
 */
export class RequeueStrandedJobs {
  readonly #scan: JobScan;

  constructor(
    jobs: JobRepository,
    private readonly queue: TaskQueue,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {
    this.#scan = new JobScan(jobs, ['queued'], STRANDED_PER_PASS);
  }

  /** Returns how many tasks it queued (the jobs that had none). */
  async execute(): Promise<number> {
    let queued = 0;
    for await (const job of this.#scan.pass(new Date(this.clock.now().getTime() - STRANDED_AFTER_MS))) {
      const id = await this.queue.enqueue(JOB_RUN_QUEUE, { jobId: job.id } satisfies JobRunTask, { key: jobRunKey(job.id) });
      if (id === null) continue;
      queued++;
      this.logger.warn({ jobId: job.id }, 'job was stored without its task (a stop came between); queued now');
    }
    return queued;
  }
}
