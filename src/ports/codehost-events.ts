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
  /**
   * Why a verified payload cannot be of the event its (unsigned) event header names, as the
   * answer's error text; undefined when it can be. An event whose payloads are not known takes
   * any payload but a known event's (a captured ping sent again as `watch` is a ping's).
   */
  mismatch(event: string, payload: unknown): string | undefined;
  /**
   * Whether this verified payload carries something that changes with each event (an id, an
   * update time), so that the same bytes under another delivery id are a captured delivery sent
   * again; false for payloads that can repeat byte for byte (a workflow run dispatched twice with
   * the same inputs), told apart by their delivery id only. Told by the payload whatever event
   * the (unsigned) header names: renaming the event must not make a unique payload repeatable.
   */
  bodyIsUnique(event: string, payload: unknown): boolean;
  /**
   * The gateway's own job branch (`job/<id>` of the jobs' repository, never a fork's) an event
   * that the jobs' own work causes is about — a push to it, its creation, its pull request, a run
   * or check on it — or undefined. Such an event fires no agent action (docs/triggers.md): each
   * job's own events would otherwise start another job, without end. Without `event` (a stored
   * request without its event header), any event the payload can be of.
   */
  ownJobBranch(event: string | undefined, payload: unknown): string | undefined;
  /**
   * The commits an event of the jobs' repository names — a push's head (`after`, first) and each commit
   * it brings, a run's, check's, status's or deployment's head commit (a status's parents too) —
   * lower case, or none. An event of a commit recorded for a job's auto-merge
   * (JobRepository.jobOfMergeCommit: the merge commit, or the job's head the push of the merge
   * brings) is the job's own and fires no agent action, as ownJobBranch's. Without `event`, any
   * event the payload can be of.
   */
  commits(event: string | undefined, payload: unknown): string[];
}
