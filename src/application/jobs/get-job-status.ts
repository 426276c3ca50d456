import { JOB_STATUSES, FINISHED, type Job, type JobStatus } from '../../domain/jobs/job.js';
import { DomainError } from '../../domain/errors/domain-error.js';
import { isUuid } from '../../domain/ids/is-uuid.js';
import type { JobRepository } from '../../ports/job-repository.js';

export const DEFAULT_LIST_LIMIT = 50;
export const MAX_LIST_LIMIT = 200;

export type JobStatusQuery = Readonly<Record<string, string | readonly string[] | undefined>>;

export type JobStatusResult = { readonly kind: 'one'; readonly job: Job } | { readonly kind: 'list'; readonly jobs: Job[] };

const single = (query: JobStatusQuery, name: string): string | undefined => {
  const value = query[name];
  if (Array.isArray(value)) throw new DomainError('invalid_input', `Give ${name} once`);
  return value as string | undefined;
};

/**
 * GET /api/jobs/status: one job by `job_id`, or the unfinished jobs newest first
 * (`status` narrows to one status, `limit` caps the count).
 */
export class GetJobStatus {
  constructor(private readonly jobs: JobRepository) {}

  async execute(query: JobStatusQuery): Promise<JobStatusResult> {
    const id = single(query, 'job_id');
    if (id !== undefined) {
      if (!isUuid(id)) throw new DomainError('invalid_input', 'job_id must be a UUID');
      const job = await this.jobs.get(id.toLowerCase());
      if (!job) throw new DomainError('not_found', 'Job not found');
      return { kind: 'one', job };
    }
    const status = single(query, 'status');
    if (status !== undefined && !JOB_STATUSES.includes(status as JobStatus)) {
      throw new DomainError('invalid_input', `status must be one of ${JOB_STATUSES.join(', ')}`);
    }
    const rawLimit = single(query, 'limit');
    const limit = rawLimit === undefined ? DEFAULT_LIST_LIMIT : Number(rawLimit);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT || !/^\d+$/.test(rawLimit ?? '1')) {
      throw new DomainError('invalid_input', `limit must be a whole number from 1 to ${MAX_LIST_LIMIT}`);
    }
    const statuses = status !== undefined ? [status as JobStatus] : JOB_STATUSES.filter((s) => !FINISHED.includes(s));
    return { kind: 'list', jobs: await this.jobs.list({ statuses, limit }) };
  }
}
