import type { TriggerAction } from '../triggers/trigger.js';

/** A scheduled entry of `config/CRONS.json`, validated: actions run at each occurrence of `schedule`. */
export interface Schedule {
  readonly name: string;
  /** A cron expression: five fields, or six with seconds first. */
  readonly schedule: string;
  /** An IANA time zone the expression is read in; UTC when absent (scheduleZone). */
  readonly timezone?: string;
  readonly enabled: boolean;
  /**
   * Occurrences missed while no replica ran (and this definition was enabled, see Scheduler.catchUp):
   * true (the default) runs the last one once at start-up, recorded as a catch-up; false records
   * it as missed and runs nothing.
   */
  readonly catchUp: boolean;
  /** The action types of triggers, their templates read with `scheduleSnapshot` (see there). */
  readonly actions: readonly TriggerAction[];
}

/** The zone a schedule without `timezone` is read in. */
export const DEFAULT_SCHEDULE_ZONE = 'UTC';

/**
 * The zone the schedule's expression is read in: its `timezone`, else UTC — never the zone of
 * the process that asks (the service's `TZ`, a replica's, or the shell's of `crons check`), so
 * that every replica and the check find the same occurrences.
 */
export const scheduleZone = (schedule: Pick<Schedule, 'timezone'>): string => schedule.timezone ?? DEFAULT_SCHEDULE_ZONE;

/** The idempotency key of one occurrence: the same on every replica, so it is enqueued once. */
export const occurrenceKey = (name: string, occurrence: Date): string => `cron:${name}:${occurrence.toISOString()}`;

/** The name a schedule's action runs are recorded under (beside the triggers' runs). */
export const scheduleRunName = (name: string): string => `cron:${name}`;

/** JSON with every object's keys sorted and undefined fields left out: the same text for the same value. */
const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
};

/**
 * What decides when and what a schedule runs, as canonical JSON: its expression, time zone and
 * actions (not its name, `enabled` or `catch_up`). Hashed into the fingerprint recorded with
 * its occurrences (Scheduler): missed occurrences are caught up only for the same definition.
 */
export const scheduleDefinition = (schedule: Schedule): string =>
  canonicalJson({ schedule: schedule.schedule, timezone: schedule.timezone ?? null, actions: schedule.actions });
