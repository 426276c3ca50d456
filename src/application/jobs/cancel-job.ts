import { applyChange, type Job } from '../../domain/jobs/job.js';
import { DomainError } from '../../domain/errors/domain-error.js';
import type { Clock } from '../../ports/clock.js';
import type { JobRepository } from '../../ports/job-repository.js';
import type { RunJob } from './run-job.js';

/** Cancels a queued or running job; a running local job is stopped. */
export class CancelJob {
  constructor(
    private readonly jobs: JobRepository,
    private readonly runJob: RunJob,
    private readonly clock: Clock,
  ) {}

  async execute(jobId: string): Promise<Job> {
    const job = await this.jobs.modify(jobId, (stored) => applyChange(stored, { status: 'cancelled', error: 'Cancelled' }, this.clock.now()));
    if (!job) throw new DomainError('not_found', 'Job not found');
    this.runJob.abort(jobId);
    return job;
  }
}
