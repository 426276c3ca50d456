import { applyChange, isFinished } from '../../domain/jobs/job.js';
import { isDomainError } from '../../domain/errors/domain-error.js';
export const INTERRUPTED = 'The service stopped while the job was running';
/** The abort reason of a stop of the service (cancellation uses another). */
const SHUTDOWN = 'shutdown';
/**
 * Runs a queued job with the configured runner (the worker of the job-run queue).
 * A job found `running` on a repeated task was interrupted by a stop of the process:
 * it is marked failed with that reason rather than run twice. Cancellation aborts it.
 */
export class RunJob {
    jobs;
    runner;
    clock;
    logger;
    #running = new Map();
    constructor(jobs, runner, clock, logger) {
        this.jobs = jobs;
        this.runner = runner;
        this.clock = clock;
        this.logger = logger;
    }
    async execute(task) {
        const log = this.logger.child({ jobId: task.jobId, runner: this.runner.kind });
        const job = await this.jobs.get(task.jobId);
        if (!job)
            return log.warn({}, 'queued job no longer exists');
        if (isFinished(job.status))
            return;
        if (job.status === 'running') {
            await this.#report(task.jobId, { status: 'failed', error: INTERRUPTED });
            return log.warn({}, 'job was interrupted by a stop of the service; marked failed');
        }
        const started = await this.jobs.modify(job.id, (stored) => applyChange(stored, { status: 'running' }, this.clock.now()));
        if (!started)
            return;
        const controller = new AbortController();
        this.#running.set(job.id, controller);
        log.info({}, 'job started');
        try {
            await this.runner.run(started, (change) => this.#report(job.id, change), controller.signal);
        }
        catch (error) {
            log.error({ err: error }, 'job failed to run');
            await this.#report(job.id, { status: 'failed', error: error instanceof Error ? error.message : String(error) });
        }
        finally {
            this.#running.delete(job.id);
        }
        if (controller.signal.aborted && controller.signal.reason === SHUTDOWN) {
            await this.#report(job.id, { status: 'failed', error: INTERRUPTED });
            log.warn({}, 'job stopped by a stop of the service; marked failed');
        }
        const finished = await this.jobs.get(job.id);
        log.info({ status: finished?.status }, 'job runner returned');
    }
    /** Aborts the job if this process is running it (a cancellation). */
    abort(jobId) {
        const controller = this.#running.get(jobId);
        controller?.abort('cancelled');
        return controller !== undefined;
    }
    /**
     * Stops every job this process runs, for a stop of the service whose grace period ran
     * out: their agents are killed, their work committed, and the jobs marked failed as
     * interrupted. Returns how many were running.
     */
    abortAll() {
        for (const controller of this.#running.values())
            controller.abort(SHUTDOWN);
        return this.#running.size;
    }
    /** Stores a change; a change the job's state no longer allows (it was cancelled meanwhile) is dropped. */
    async #report(jobId, change) {
        try {
            await this.jobs.modify(jobId, (job) => applyChange(job, change, this.clock.now()));
        }
        catch (error) {
            if (!(isDomainError(error) && error.code === 'conflict'))
                throw error;
        }
    }
}
//# sourceMappingURL=run-job.js.map