import { applyChange, type Job } from '../../domain/jobs/job.js';
import { isDomainError } from '../../domain/errors/domain-error.js';
import type { Clock } from '../../ports/clock.js';
import type { JobRepository } from '../../ports/job-repository.js';
import type { JobRunner } from '../../ports/job-runner.js';
import type { Logger } from '../../ports/logger.js';

/** The fallback for missed code-host events: asks the runner about every running job. */
export class PollJobs {
  constructor(
    private readonly jobs: JobRepository,
    private readonly runner: JobRunner,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** Called with each job a poll updated, as stored afterwards (auto-merge: RequestAutoMerge). */
    private readonly afterJobUpdate?: (job: Job) => Promise<void>,
  ) {}

  get needed(): boolean {
    return this.runner.poll !== undefined;
  }

  async execute(): Promise<number> {
    if (!this.runner.poll) return 0;
    let updated = 0;
    for (const job of await this.jobs.list({ statuses: ['running'], limit: 200 })) {
      try {
        const change = await this.runner.poll(job);
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
