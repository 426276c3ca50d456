import { isFinished, type Job, type JobStatus } from '../../domain/jobs/job.js';
import type { JobRepository, NewestFirstFilter, OldestFirstFilter } from '../../ports/job-repository.js';
import type { Logger } from '../../ports/logger.js';

/** Told when a job created from a chat has just finished. */
export type ChatJobListener = (job: Job) => Promise<void>;

/**
 * A JobRepository that notices the moment a chat job finishes, whoever finishes it (the
 * local runner, a code-host event, the poller, a cancellation), and tells the listener once,
 * after the status is stored. What the listener does not finish (the process killed, the queue
 * failing) is made up for by a sweep: see RequeueLostJobNotices.
 */
export class NotifyingJobRepository implements JobRepository {
  constructor(
    private readonly inner: JobRepository,
    private readonly listener: ChatJobListener,
    private readonly logger: Logger,
  ) {}

  add(job: Job): Promise<void> {
    return this.inner.add(job);
  }
  addWithinQueueLimit(job: Job, limit: number): Promise<boolean> {
    return this.inner.addWithinQueueLimit(job, limit);
  }
  get(id: string): Promise<Job | null> {
    return this.inner.get(id);
  }
  list(filter: NewestFirstFilter): Promise<Job[]> {
    return this.inner.list(filter);
  }
  listOldestFirst(filter: OldestFirstFilter): Promise<Job[]> {
    return this.inner.listOldestFirst(filter);
  }
  countByStatus(): Promise<Partial<Record<JobStatus, number>>> {
    return this.inner.countByStatus();
  }
  listAwaitingNotice(filter: { readonly changedBefore: Date; readonly limit: number }): Promise<Job[]> {
    return this.inner.listAwaitingNotice(filter);
  }
  markNoticeQueued(id: string, at: Date): Promise<void> {
    return this.inner.markNoticeQueued(id, at);
  }
  recordMergeCommits(id: string, shas: readonly string[], at: Date): Promise<void> {
    return this.inner.recordMergeCommits(id, shas, at);
  }
  jobOfMergeCommit(shas: readonly string[]): Promise<string | null> {
    return this.inner.jobOfMergeCommit(shas);
  }

  async modify(id: string, change: (job: Job) => Job): Promise<Job | null> {
    let before: JobStatus | undefined;
    const after = await this.inner.modify(id, (job) => {
      before = job.status;
      return change(job);
    });
    if (after && before !== undefined && !isFinished(before) && isFinished(after.status) && after.source.kind === 'chat') {
      this.listener(after).catch((error: unknown) => this.logger.warn({ err: error, jobId: id }, 'could not notify the chat of its job'));
    }
    return after;
  }
}
