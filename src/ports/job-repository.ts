import type { Job, JobStatus } from '../domain/jobs/job.js';

/** Where a page of jobs ended: the last job's creation time and id. */
export interface JobCursor {
  readonly createdAt: Date;
  readonly id: string;
}

/** What `listOldestFirst` lists. */
export interface OldestFirstFilter {
  readonly statuses: readonly JobStatus[];
  /** Only the jobs after this one in the order (a keyset page: the last job of the page before). */
  readonly after?: JobCursor;
  /** Only the jobs created before this time. */
  readonly createdBefore?: Date;
  readonly limit: number;
}

/** What `list` lists. */
export interface NewestFirstFilter {
  readonly statuses: readonly JobStatus[];
  /** Only the jobs after this one in the order, newest first (a keyset page: the last job of the page before). */
  readonly before?: JobCursor;
  readonly limit: number;
}

/** Where jobs are stored. */
export interface JobRepository {
  /**
   * Stores a new job, every field as given, but for text a database cannot store: in every text
   * field (log, summary, error, URLs, prompt…) each NUL and lone surrogate is stored as U+FFFD.
   * @throws when a job with the same id exists (the stored one is kept), or the store fails.
   */
  add(job: Job): Promise<void>;

  /**
   * Stores a new job as `add` does, unless `limit` or more jobs are `queued` (JOB_QUEUE_LIMIT):
   * then it stores nothing and returns false. Exact on every replica: calls of it are taken one
   * after the other, each counting the jobs the ones before stored, so that of two calls at
   * `limit - 1` only one stores its job (a job added by `add` meanwhile is not held back). The
   * count reads at most `limit` entries of the index on the status, however many jobs there are.
   * @throws as `add` does (a job with the same id, the store failing); a `limit` below 1 is a bug.
   */
  addWithinQueueLimit(job: Job, limit: number): Promise<boolean>;

  /** The job, or null when no job has that id (also for a string that is no UUID: never an error). */
  get(id: string): Promise<Job | null>;

  /**
   * Reads the job, applies `change` and stores the result, atomically with respect to
   * other modifications of the same job, on any replica (events and runners may race).
   * Text fields are stored as `add` stores them. Returns the stored job, or null (without calling `change`) when no job has that id.
   * Whatever `change` throws is rethrown, nothing stored.
   */
  modify(id: string, change: (job: Job) => Job): Promise<Job | null>;

  /**
   * Jobs with one of `statuses`, newest first (equal creation times: highest id first), at most
   * `limit`: a page of all of them, however many, read one page after another (`before`: the last
   * job of the page before; jobs created in the same millisecond are each listed once), each a
   * bounded query on the status and creation time.
   */
  list(filter: NewestFirstFilter): Promise<Job[]>;

  /**
   * Jobs with one of `statuses`, oldest first (equal creation times: lowest id first), at most
   * `limit`: a page of all of them, however many, read one page after another (`after`: the last
   * job of the page before), each a bounded query on the status and creation time.
   */
  listOldestFirst(filter: OldestFirstFilter): Promise<Job[]>;

  /** How many jobs are in each status (statuses without jobs may be absent or 0). */
  countByStatus(): Promise<Partial<Record<JobStatus, number>>>;

  /**
   * Finished jobs created from a chat whose notice is not recorded as queued (`markNoticeQueued`)
   * and that were last changed (`updatedAt`) before `changedBefore`: oldest change first (equal
   * times: lowest id first), at most `limit`. Jobs that finished before notices were recorded
   * count as recorded.
   */
  listAwaitingNotice(filter: { readonly changedBefore: Date; readonly limit: number }): Promise<Job[]>;

  /**
   * Records that the job's chat notice is queued: `listAwaitingNotice` no longer gives the job,
   * whatever later `modify` calls store. Idempotent (the first time is kept); an unknown id (or
   * no UUID) is ignored. Changes none of the job's fields.
   */
  markNoticeQueued(id: string, at: Date): Promise<void>;

  /**
   * Records commits of the job's auto-merge: the job's head a merge is asked for (before asking:
   * the push of the merge may come back before the answer) and the merge commit (the answer, or
   * the push bringing the head into the base branch). Insert-only and idempotent: a commit
   * recorded before (for this job or another) is kept as it is. Commits are compared in lower case;
   * a string that is no commit id (40 or 64 hex digits) is not recorded.
   */
  recordMergeCommits(id: string, shas: readonly string[], at: Date): Promise<void>;

  /**
   * The id of the job one of `shas` is a recorded merge commit of (`recordMergeCommits`), or null
   * (also for no commits). Any case.
   */
  jobOfMergeCommit(shas: readonly string[]): Promise<string | null>;
}
