/**
 * `queued` (enqueued, not started), `running`, `succeeded` or `failed` (every action ran; one
 * failed), `missed` (not run: catch_up false) or `skipped` (the schedule was gone or disabled
 * when its task ran).
 */
export type ScheduleRunStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'missed' | 'skipped';

/**
 * Markers, never runs: `baseline` (the schedule was seen enabled with the definition of
 * `fingerprint` at `occurrence`, and nothing before counts as missed) or `disabled` (seen
 * disabled, or no longer configured, at `occurrence`). Only the scheduler reads them
 * (`lastSeen`); the run listings and counts leave them out.
 */
export type ScheduleMarkerStatus = 'baseline' | 'disabled';

/** One occurrence of one schedule: recorded once, whichever replica enqueued or ran it. */
export interface ScheduleRun {
  readonly schedule: string;
  /** The occurrence's time; for a marker, when the schedule was seen so. */
  readonly occurrence: Date;
  readonly status: ScheduleRunStatus | ScheduleMarkerStatus;
  /** Run at start-up for an occurrence missed while no replica ran. */
  readonly catchUp: boolean;
  /** The action runs' id (ActionRunRepository), once it ran. */
  readonly runId: string | null;
  readonly updatedAt: Date;
  readonly error: string | null;
  /**
   * The fingerprint of the schedule's definition that recorded this (scheduleFingerprint: its
   * expression, time zone and actions); null (or absent) when unknown: recorded before
   * fingerprints were (Migration20261130300000_schedule_run_fingerprints).
   */
  readonly fingerprint?: string | null;
}

/** The durable record of schedule occurrences: what ran, what was missed, the last of each. */
export interface ScheduleRunRepository {
  /**
   * Records an occurrence (or a marker) unless one is recorded already for the schedule and time
   * (by any replica, also at the same moment): true when this call recorded it, false when it was there.
   * @throws when the store fails.
   */
  add(run: ScheduleRun): Promise<boolean>;
  /** Records the occurrence with these fields, whether it was recorded before or not. */
  put(run: ScheduleRun): Promise<void>;
  /** The latest occurrence run or recorded of each schedule (by occurrence time, markers left out), by schedule name. */
  latest(): Promise<Map<string, ScheduleRun>>;
  /** The latest record of each schedule, marker or occurrence (by time), by schedule name: what start-up judges catch-up from. */
  lastSeen(): Promise<Map<string, ScheduleRun>>;
  /** The occurrences of one schedule, latest first, at most `limit` (markers left out). */
  forSchedule(schedule: string, limit: number): Promise<ScheduleRun[]>;
  /**
   * Retention: deletes up to `limit` records before `cutoff`, oldest first, but never a
   * schedule's latest occurrence (the admin UI shows it) nor its latest record (start-up judges
   * what was missed from it). Returns how many it deleted (fewer than `limit`: none deletable is
   * left, however many kept records come before the others).
   */
  deleteOlderThan(cutoff: Date, limit: number): Promise<number>;
  /** How many occurrences of each schedule ended in each status (markers left out). */
  countByStatus(): Promise<Array<{ readonly schedule: string; readonly status: ScheduleRunStatus; readonly count: number }>>;
}

/** The statuses of markers: records that are not occurrences. */
export const SCHEDULE_MARKER_STATUSES: readonly ScheduleMarkerStatus[] = ['baseline', 'disabled'];
