import { applyChange, type Job } from '../../domain/jobs/job.js';
import { DomainError } from '../../domain/errors/domain-error.js';
import type { Clock } from '../../ports/clock.js';
import type { JobRepository } from '../../ports/job-repository.js';
import type { JobRunner } from '../../ports/job-runner.js';
import type { Logger } from '../../ports/logger.js';
import type { RunJob } from './run-job.js';

/**
 * Cancels a queued or running job; a running local job is stopped, and one running elsewhere
 * (a GitHub Actions workflow) is stopped there (JobRunner.stopElsewhere) when the runner can.
 */
export class CancelJob {
  constructor(
    private readonly jobs: JobRepository,
    private readonly runJob: RunJob,
    private readonly clock: Clock,
    private readonly runner?: JobRunner,
    private readonly logger?: Logger,
  ) {}

  async execute(jobId: string): Promise<Job> {
    const job = await this.jobs.modify(jobId, (stored) => applyChange(stored, { status: 'cancelled', error: 'Cancelled' }, this.clock.now()));
    if (!job) throw new DomainError('not_found', 'Job not found');
    this.runJob.abort(jobId);
    if (job.status === 'cancelled' && this.runner?.stopElsewhere !== undefined) {
      // After the answer: the platform's calls (retried through its rate limits) could hold the
      // caller's request for minutes, and the job is cancelled here whatever they do.
      const stopping: Promise<unknown> = this.runner
        .stopElsewhere(job)
        .catch((error: unknown) =>
          this.logger?.warn({ jobId, err: error }, 'cancelled job could not be stopped where it runs; it is cancelled here all the same'),
        )
        .finally(() => this.#stopping.delete(stopping));
      this.#stopping.add(stopping);
    }
    return job;
  }

  readonly #stopping = new Set<Promise<unknown>>();

  /** Resolves once every job cancelled so far was stopped where it runs (or could not be). */
  async stoppedElsewhere(): Promise<void> {
    while (this.#stopping.size > 0) await Promise.all([...this.#stopping]);
  }
}
