/**
 * `queued` (enqueued, not started), `running`, `succeeded` or `failed` (every action ran; one
 * failed), `missed` (not run: catch_up false) or `skipped` (the schedule was gone or disabled
 * when its task ran).
 */
export type ScheduleRunStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'missed' | 'skipped';

/** One occurrence of one schedule: recorded once, whichever replica enqueued or ran it. */
export interface ScheduleRun {
  readonly schedule: string;
  readonly occurrence: Date;
  readonly status: ScheduleRunStatus;
  /** Run at start-up for an occurrence missed while no replica ran. */
  readonly catchUp: boolean;
  /** The action runs' id (ActionRunRepository), once it ran. */
  readonly runId: string | null;
  readonly updatedAt: Date;
  readonly error: string | null;
}

/** The durable record of schedule occurrences: what ran, what was missed, the last of each. */
export interface ScheduleRunRepository {
  /**
   * Records an occurrence unless it is recorded already (by any replica, also at the same
   * moment): true when this call recorded it, false when it was there.
   * @throws when the store fails.
   */
  add(run: ScheduleRun): Promise<boolean>;
  /** Records the occurrence with these fields, whether it was recorded before or not. */
  put(run: ScheduleRun): Promise<void>;
  /** The latest occurrence recorded of each schedule (by occurrence time), by schedule name. */
  latest(): Promise<Map<string, ScheduleRun>>;
  /** The occurrences of one schedule, latest first, at most `limit`. */
  forSchedule(schedule: string, limit: number): Promise<ScheduleRun[]>;
  /** How many occurrences of each schedule ended in each status. */
  /**
   * Retention: deletes occurrences before `cutoff`, oldest first, looking at up to `limit` of
   * them, but never a schedule's latest one (start-up judges what was missed from it). Returns
   * how many it looked at (fewer than `limit`: none is left).
   */
  deleteOlderThan(cutoff: Date, limit: number): Promise<number>;
  countByStatus(): Promise<Array<{ readonly schedule: string; readonly status: ScheduleRunStatus; readonly count: number }>>;
}
