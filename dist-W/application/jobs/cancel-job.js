import { applyChange } from '../../domain/jobs/job.js';
import { DomainError } from '../../domain/errors/domain-error.js';
/** Cancels a queued or running job; a running local job is stopped. */
export class CancelJob {
    jobs;
    runJob;
    clock;
    constructor(jobs, runJob, clock) {
        this.jobs = jobs;
        this.runJob = runJob;
        this.clock = clock;
    }
    async execute(jobId) {
        const job = await this.jobs.modify(jobId, (stored) => applyChange(stored, { status: 'cancelled', error: 'Cancelled' }, this.clock.now()));
        if (!job)
            throw new DomainError('not_found', 'Job not found');
        this.runJob.abort(jobId);
        return job;
    }
}
//# sourceMappingURL=cancel-job.js.map