import { applyChange, type Job } from '../../domain/jobs/job.js';
import { isDomainError } from '../../domain/errors/domain-error.js';
import { RateLimitReached } from '../../domain/jobs/rate-limit-reached.js';
import type { Clock } from '../../ports/clock.js';
import type { JobRepository } from '../../ports/job-repository.js';
import type { JobRunner } from '../../ports/job-runner.js';
import type { Logger } from '../../ports/logger.js';
import type { PollerLease } from '../../ports/poller-lease.js';
import { JobScan } from './job-scan.js';

/** The lease (PollerLease) that lets one replica at a time poll the runner about running jobs. */
export const JOB_POLL_LEASE = 'jobs:poll';

/** How many jobs a poll asks about between two renewals of its lease (a long poll keeps it). */
export const JOBS_PER_RENEWAL = 20;

/** The most running jobs one poll asks the runner about: with more, the next poll goes on where it stopped (JobScan). */
export const JOBS_PER_POLL = 200;

/**
 * The most questions the poll asks the code host in an hour (one per running job polled): 3 000,
 * well under GitHub's 5 000 calls an hour per token, leaving the rest to the hand-overs,
 * cancellations and auto-merge, which use the same token.
 */
export const POLL_CALLS_PER_HOUR = 3000;

/**
 * How many running jobs a poll asks about when polls come every `intervalMs`: as many as keep
 * the polls of an hour within POLL_CALLS_PER_HOUR (50 every 60 s, 4 every 5 s), at most
 * JOBS_PER_POLL, at least one.
 */
export const jobsPerPoll = (intervalMs: number): number => Math.max(1, Math.min(JOBS_PER_POLL, Math.floor((POLL_CALLS_PER_HOUR * intervalMs) / 3_600_000)));

export interface PollJobsOptions {
  /**
   * How often polls come (CODEHOST_POLL_SECONDS): a poll then asks about jobsPerPoll(intervalMs)
   * jobs. Without it, JOBS_PER_POLL.
   */
  readonly intervalMs?: number;
}

/** Who polls: one replica at a time across replicas, by a lease renewed while it polls. */
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
 * N replicas polling would make N times the API calls, against the code host's rate limit). The
 * lease is renewed as a poll starts and every JOBS_PER_RENEWAL jobs, and a poll that lost it
 * (another replica took it over) stops there. A poll still running when the next one is due is
 * not doubled. A poll asks about at most jobsPerPoll(intervalMs) jobs (the code host's budget,
 * POLL_CALLS_PER_HOUR), oldest first, the next going on after the last one asked about: with more
 * running jobs than that, each is still asked about every few polls. When the runner says the
 * code host's rate limit is reached (RateLimitReached), the poll stops there, and none asks
 * anything until the limit lifts; the job it was asking about is the first of the next.
 */
export class PollJobs {
  /** The poll under way, if any. */
  #polling: Promise<number> | undefined;
  #stopped = false;
  readonly #scan: JobScan;
  /** Until when the code host's rate limit holds: no poll asks anything before. */
  #pausedUntil: Date | undefined;
  /** How many jobs a poll asks about. */
  readonly perPoll: number;

  constructor(
    private readonly jobs: JobRepository,
    private readonly runner: JobRunner,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** Called with each job a poll updated, as stored afterwards (auto-merge: RequestAutoMerge). */
    private readonly afterJobUpdate?: (job: Job) => Promise<void>,
    private readonly lease?: JobPollLease,
    options: PollJobsOptions = {},
  ) {
    this.perPoll = options.intervalMs === undefined ? JOBS_PER_POLL : jobsPerPoll(options.intervalMs);
    this.#scan = new JobScan(jobs, ['running'], this.perPoll);
  }

  get needed(): boolean {
    return this.runner.poll !== undefined;
  }

  /** Polls when it is this replica's turn; the number of jobs the poll updated (0 when it did not poll). */
  async execute(): Promise<number> {
    const poll = this.runner.poll?.bind(this.runner);
    if (poll === undefined || this.#polling !== undefined || this.#stopped) return 0;
    this.#polling = this.#poll(poll);
    try {
      return await this.#polling;
    } finally {
      this.#polling = undefined;
    }
  }

  /**
   * No more polls: the one under way stops before its next job, then the lease is given up, so
   * that another replica polls at once instead of after the lease ran out. Never rejects.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#polling?.catch(() => undefined);
    if (this.lease === undefined) return;
    await this.lease.lease
      .release(JOB_POLL_LEASE, this.lease.holder)
      .catch((error: unknown) => this.logger.warn({ err: error }, 'could not give the job poll lease up'));
  }

  /** Takes or renews the lease; true without one (a single process). */
  async #hold(): Promise<boolean> {
    return this.lease === undefined || (await this.lease.lease.acquire(JOB_POLL_LEASE, this.lease.holder, this.clock.now(), this.lease.ttlMs));
  }

  async #poll(poll: NonNullable<JobRunner['poll']>): Promise<number> {
    // The lease is kept while the limit holds: another replica, with the same token, would only
    // meet the limit again.
    if (!(await this.#hold())) return 0;
    if (this.#pausedUntil !== undefined && this.clock.now().getTime() < this.#pausedUntil.getTime()) return 0;
    this.#pausedUntil = undefined;
    let updated = 0;
    let asked = 0;
    for await (const job of this.#scan.pass()) {
      if (this.#stopped) break;
      if (++asked % JOBS_PER_RENEWAL === 0 && !(await this.#hold().catch(() => false))) {
        this.logger.info({ asked }, 'job poll stopped: its lease went to another replica');
        break;
      }
      try {
        const change = await poll(job);
        if (!change) continue;
        const stored = await this.jobs.modify(job.id, (current) => applyChange(current, change, this.clock.now()));
        updated++;
        if (stored && this.afterJobUpdate) await this.afterJobUpdate(stored);
      } catch (error) {
        if (isDomainError(error) && error.code === 'conflict') continue;
        if (error instanceof RateLimitReached) {
          // Not taken: this job is where the next poll begins (JobScan).
          this.#pausedUntil = error.until;
          this.logger.warn(
            { err: error, asked: asked - 1, until: error.until.toISOString() },
            "job poll paused: the code host's rate limit is reached; polls resume once it lifts",
          );
          break;
        }
        this.logger.warn({ err: error, jobId: job.id }, 'could not poll job');
      }
    }
    return updated;
  }
}
