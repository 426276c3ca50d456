import type { Job, JobChange } from '../domain/jobs/job.js';

/** How a runner reports progress and outcome of a job. Each call is stored at once. */
export type JobReport = (change: JobChange) => Promise<void>;

/** Runs agent jobs somewhere isolated and delivers their work on the branch `job/<id>`. */
export interface JobRunner {
  /** `local` or `github-actions`, for logs and the admin UI. */
  readonly kind: string;

  /**
   * Runs the job. Resolves when the runner is done with it: for a runner that works
   * in-process, when the job finished (having reported its outcome); for a runner that
   * hands the work elsewhere, when it was handed over (the outcome arrives later by events).
   * When `signal` aborts, an in-process runner stops the work and reports what it collected
   * until then (log, summary) without a status. Throws when the job could not be started; the
   * caller marks it failed. A runner that hands jobs elsewhere (has `poll`) must take what an
   * earlier hand-over of the same job made as its own: the caller runs it again when the job's
   * task comes again and finds it running (a stop may have come midway).
   */
  run(job: Job, report: JobReport, signal: AbortSignal): Promise<void>;

  /**
   * For runners whose jobs progress elsewhere: the job's current state there, or null
   * when there is nothing new. Used as a fallback when events are missed.
   */
  poll?(job: Job): Promise<JobChange | null>;

  /**
   * For runners whose jobs run elsewhere: stops the job there (its workflow run), once it was
   * cancelled here. Best effort: the job is cancelled here whatever this does; it throws when
   * the platform refused or could not be reached.
   */
  stopElsewhere?(job: Job): Promise<void>;
}
