import type { JobChange } from '../domain/jobs/job.js';

export interface JobUpdate {
  readonly jobId: string;
  readonly change: JobChange;
}

/** Reads what a verified code-host event says about a job. */
export interface CodehostEvents {
  /**
   * The update an event carries for the job of its branch (`job/<id>`), or null when the
   * event is about no job (another branch, another event type, an action that changes nothing).
   */
  jobUpdate(event: string, payload: unknown): JobUpdate | null;
}
