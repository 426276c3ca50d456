import { applyChange } from '../../domain/jobs/job.js';
import { isDomainError } from '../../domain/errors/domain-error.js';
/** The fallback for missed code-host events: asks the runner about every running job. */
export class PollJobs {
    jobs;
    runner;
    clock;
    logger;
    afterJobUpdate;
    constructor(jobs, runner, clock, logger, 
    /** Called with each job a poll updated, as stored afterwards (auto-merge: RequestAutoMerge). */
    afterJobUpdate) {
        this.jobs = jobs;
        this.runner = runner;
        this.clock = clock;
        this.logger = logger;
        this.afterJobUpdate = afterJobUpdate;
    }
    get needed() {
        return this.runner.poll !== undefined;
    }
    async execute() {
        if (!this.runner.poll)
            return 0;
        let updated = 0;
        for (const job of await this.jobs.list({ statuses: ['running'], limit: 200 })) {
            try {
                const change = await this.runner.poll(job);
                if (!change)
                    continue;
                const stored = await this.jobs.modify(job.id, (current) => applyChange(current, change, this.clock.now()));
                updated++;
                if (stored && this.afterJobUpdate)
                    await this.afterJobUpdate(stored);
            }
            catch (error) {
                if (isDomainError(error) && error.code === 'conflict')
                    continue;
                this.logger.warn({ err: error, jobId: job.id }, 'could not poll job');
            }
        }
        return updated;
    }
}
//# sourceMappingURL=poll-jobs.js.map