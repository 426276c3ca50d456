import { applyChange, type Job } from '../../domain/jobs/job.js';
import { isDomainError } from '../../domain/errors/domain-error.js';
import type { Clock } from '../../ports/clock.js';
import type { JobRepository } from '../../ports/job-repository.js';
import type { JobRunner } from '../../ports/job-runner.js';
import type { Logger } from '../../ports/logger.js';
import type { PollerLease } from '../../ports/poller-lease.js';

/** The lease (PollerLease) that lets one replica at a time poll the runner about running jobs. */
export const JOB_POLL_LEASE = 'jobs:poll';

/** Who polls: one replica at a time across replicas, by a lease renewed at every poll. */
export interface JobPollLease {
  readonly lease: PollerLease;
  /** This replica's name on the lease (unique per process). */
  readonly holder: string;
  /** How long the lease lasts unless renewed: a few polls, so that another replica takes over when the holder dies. */
  readonly ttlMs: number;
}

/**
 * The fallback for missed code-host events: asks the runner about every running job. With a
 * lease, only the replica holding it polls (each poll asks the code host once per running job:
 * N replicas polling would make N times the API calls, against the code host's rate limit); a
 * poll still running when the next one is due is not doubled.
 */
export class PollJobs {
  #polling = false;

  constructor(
    private readonly jobs: JobRepository,
    private readonly runner: JobRunner,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** Called with each job a poll updated, as stored afterwards (auto-merge: RequestAutoMerge). */
    private readonly afterJobUpdate?: (job: Job) => Promise<void>,
    private readonly lease?: JobPollLease,
  ) {}

  get needed(): boolean {
    return this.runner.poll !== undefined;
  }

  /** Polls when it is this replica's turn; the number of jobs the poll updated (0 when it did not poll). */
  async execute(): Promise<number> {
    if (!this.runner.poll || this.#polling) return 0;
    this.#polling = true;
    try {
      if (this.lease !== undefined && !(await this.lease.lease.acquire(JOB_POLL_LEASE, this.lease.holder, this.clock.now(), this.lease.ttlMs))) return 0;
      return await this.#poll(this.runner.poll.bind(this.runner));
    } finally {
      this.#polling = false;
    }
  }

  /** Gives the lease up (a stop), so that another replica polls at once instead of after the lease ran out. Never rejects. */
  async stop(): Promise<void> {
    if (this.lease === undefined) return;
    await this.lease.lease
      .release(JOB_POLL_LEASE, this.lease.holder)
      .catch((error: unknown) => this.logger.warn({ err: error }, 'could not give the job poll lease up'));
  }

  async #poll(poll: NonNullable<JobRunner['poll']>): Promise<number> {
    let updated = 0;
    for (const job of await this.jobs.list({ statuses: ['running'], limit: 200 })) {
      try {
        const change = await poll(job);
        if (!change) continue;
        const stored = await this.jobs.modify(job.id, (current) => applyChange(current, change, this.clock.now()));
        updated++;
        if (stored && this.afterJobUpdate) await this.afterJobUpdate(stored);
      } catch (error) {
        if (isDomainError(error) && error.code === 'conflict') continue;
        this.logger.warn({ err: error, jobId: job.id }, 'could not poll job');
      }
    }
    return updated;
  }
}
