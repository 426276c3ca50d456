import { JOB_STATUSES, FINISHED } from '../../domain/jobs/job.js';
import { DomainError } from '../../domain/errors/domain-error.js';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const DEFAULT_LIST_LIMIT = 50;
export const MAX_LIST_LIMIT = 200;
const single = (query, name) => {
    const value = query[name];
    if (Array.isArray(value))
        throw new DomainError('invalid_input', `Give ${name} once`);
    return value;
};
/**
 * GET /api/jobs/status: one job by `job_id`, or the unfinished jobs newest first
 * (`status` narrows to one status, `limit` caps the count).
 */
export class GetJobStatus {
    jobs;
    constructor(jobs) {
        this.jobs = jobs;
    }
    async execute(query) {
        const id = single(query, 'job_id');
        if (id !== undefined) {
            if (!UUID.test(id))
                throw new DomainError('invalid_input', 'job_id must be a UUID');
            const job = await this.jobs.get(id.toLowerCase());
            if (!job)
                throw new DomainError('not_found', 'Job not found');
            return { kind: 'one', job };
        }
        const status = single(query, 'status');
        if (status !== undefined && !JOB_STATUSES.includes(status)) {
            throw new DomainError('invalid_input', `status must be one of ${JOB_STATUSES.join(', ')}`);
        }
        const rawLimit = single(query, 'limit');
        const limit = rawLimit === undefined ? DEFAULT_LIST_LIMIT : Number(rawLimit);
        if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT || !/^\d+$/.test(rawLimit ?? '1')) {
            throw new DomainError('invalid_input', `limit must be a whole number from 1 to ${MAX_LIST_LIMIT}`);
        }
        const statuses = status !== undefined ? [status] : JOB_STATUSES.filter((s) => !FINISHED.includes(s));
        return { kind: 'list', jobs: await this.jobs.list({ statuses, limit }) };
    }
}
//# sourceMappingURL=get-job-status.js.map