import type { Job, JobStatus } from '../domain/jobs/job.js';

/** Where jobs are stored. */
export interface JobRepository {
  /**
   * Stores a new job, every field as given.
   * @throws when a job with the same id exists (the stored one is kept), or the store fails.
   */
  add(job: Job): Promise<void>;

  /** The job, or null when no job has that id (also for a string that is no UUID: never an error). */
  get(id: string): Promise<Job | null>;

  /**
   * Reads the job, applies `change` and stores the result, atomically with respect to
   * other modifications of the same job, on any replica (events and runners may race).
   * Returns the stored job, or null (without calling `change`) when no job has that id.
   * Whatever `change` throws is rethrown, nothing stored.
   */
  modify(id: string, change: (job: Job) => Job): Promise<Job | null>;

  /** Jobs with one of `statuses`, newest first (equal creation times: highest id first), at most `limit`. */
  list(filter: { readonly statuses: readonly JobStatus[]; readonly limit: number }): Promise<Job[]>;

  /** How many jobs are in each status (statuses without jobs may be absent or 0). */
  countByStatus(): Promise<Partial<Record<JobStatus, number>>>;
}
