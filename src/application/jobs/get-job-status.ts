import { JOB_STATUSES, FINISHED, type Job, type JobStatus } from '../../domain/jobs/job.js';
import { DomainError } from '../../domain/errors/domain-error.js';
import { isUuid } from '../../domain/ids/is-uuid.js';
import type { JobCursor, JobRepository } from '../../ports/job-repository.js';

export const DEFAULT_LIST_LIMIT = 50;
export const MAX_LIST_LIMIT = 200;

export type JobStatusQuery = Readonly<Record<string, string | readonly string[] | undefined>>;

export type JobStatusResult =
  | { readonly kind: 'one'; readonly job: Job }
  /** `nextBefore`: the `before` of the next page, or null when this page is the last. */
  | { readonly kind: 'list'; readonly jobs: Job[]; readonly nextBefore: string | null };

const single = (query: JobStatusQuery, name: string): string | undefined => {
  const value = query[name];
  if (Array.isArray(value)) throw new DomainError('invalid_input', `Give ${name} once`);
  return value as string | undefined;
};

const CURSOR_TEXT = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z) ([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/** A page's end as the opaque `before` of the next: base64url of "<created_at, ISO 8601> <id>". */
export const encodeJobCursor = (job: JobCursor): string => Buffer.from(`${job.createdAt.toISOString()} ${job.id}`).toString('base64url');

/** The job a `before` names, or undefined when it is no cursor this service gives. */
export const decodeJobCursor = (text: string): JobCursor | undefined => {
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(text)) return undefined;
  const match = CURSOR_TEXT.exec(Buffer.from(text, 'base64url').toString('latin1'));
  if (match === null) return undefined;
  const createdAt = new Date(match[1]);
  // A time that does not exist (2026-02-30) or text that is not what was given (padding bits).
  if (Number.isNaN(createdAt.getTime()) || createdAt.toISOString() !== match[1] || !isUuid(match[2])) return undefined;
  // Year 0000 is a Date (1 BC) but no year the database reads ('date/time field value out of
  // range', a 500): no job was created then, so it is no cursor this service gave.
  if (createdAt.getUTCFullYear() < 1) return undefined;
  if (encodeJobCursor({ createdAt, id: match[2] }) !== text) return undefined;
  return { createdAt, id: match[2] };
};

/**
 * GET /api/jobs/status: one job by `job_id`, or the unfinished jobs newest first
 * (`status` narrows to one status, `limit` caps the count), page after page: `before` is the
 * `next_before` of the page before (created_at desc, id desc: each job once, however many share
 * a millisecond).
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
    const rawBefore = single(query, 'before');
    const before = rawBefore === undefined ? undefined : decodeJobCursor(rawBefore);
    if (rawBefore !== undefined && before === undefined) {
      throw new DomainError('invalid_input', 'before must be the next_before of an earlier answer');
    }
    const statuses = status !== undefined ? [status as JobStatus] : JOB_STATUSES.filter((s) => !FINISHED.includes(s));
    // One more than the page: whether another page follows.
    const jobs = await this.jobs.list({ statuses, before, limit: limit + 1 });
    const page = jobs.slice(0, limit);
    const last = page.at(-1);
    return { kind: 'list', jobs: page, nextBefore: jobs.length > limit && last !== undefined ? encodeJobCursor(last) : null };
  }
}
