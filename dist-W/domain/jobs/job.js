import { DomainError } from '../errors/domain-error.js';
export const JOB_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'];
export const FINISHED = ['succeeded', 'failed', 'cancelled'];
const ALLOWED = {
    queued: ['running', 'succeeded', 'failed', 'cancelled'],
    running: ['succeeded', 'failed', 'cancelled'],
    succeeded: [],
    failed: [],
    cancelled: [],
};
export const branchOf = (id) => `job/${id}`;
export const isFinished = (status) => FINISHED.includes(status);
/** Whether `from → to` is a legal move: forward only, never out of a finished state. */
export const canMove = (from, to) => ALLOWED[from].includes(to);
/**
 * Applies a change at `at`. A status move must be legal; moving to the status the job
 * already has is a no-op for the status (events may repeat). Throws `conflict` otherwise.
 */
export const applyChange = (job, change, at) => {
    const status = change.status ?? job.status;
    if (status !== job.status && !canMove(job.status, status)) {
        throw new DomainError('conflict', `Job ${job.id} cannot move from ${job.status} to ${status}`);
    }
    return {
        ...job,
        status,
        prUrl: change.prUrl !== undefined ? change.prUrl : job.prUrl,
        runUrl: change.runUrl !== undefined ? change.runUrl : job.runUrl,
        summary: change.summary !== undefined ? change.summary : job.summary,
        error: change.error !== undefined ? change.error : job.error,
        log: change.log !== undefined ? change.log : job.log,
        updatedAt: at,
    };
};
//# sourceMappingURL=job.js.map