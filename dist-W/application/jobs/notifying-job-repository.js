import { isFinished } from '../../domain/jobs/job.js';
/**
 * A JobRepository that notices the moment a chat job finishes, whoever finishes it (the
 * local runner, a code-host event, the poller, a cancellation), and tells the listener once.
 */
export class NotifyingJobRepository {
    inner;
    listener;
    logger;
    constructor(inner, listener, logger) {
        this.inner = inner;
        this.listener = listener;
        this.logger = logger;
    }
    add(job) {
        return this.inner.add(job);
    }
    get(id) {
        return this.inner.get(id);
    }
    list(filter) {
        return this.inner.list(filter);
    }
    countByStatus() {
        return this.inner.countByStatus();
    }
    async modify(id, change) {
        let before;
        const after = await this.inner.modify(id, (job) => {
            before = job.status;
            return change(job);
        });
        if (after && before !== undefined && !isFinished(before) && isFinished(after.status) && after.source.kind === 'chat') {
            this.listener(after).catch((error) => this.logger.warn({ err: error, jobId: id }, 'could not notify the chat of its job'));
        }
        return after;
    }
}
//# sourceMappingURL=notifying-job-repository.js.map