import type { TriggerAction } from '../triggers/trigger.js';

/** A scheduled entry of `config/CRONS.json`, validated: actions run at each occurrence of `schedule`. */
export interface Schedule {
  readonly name: string;
  /** A cron expression: five fields, or six with seconds first. */
  readonly schedule: string;
  /** An IANA time zone the expression is read in; the service's zone (UTC in containers) when absent. */
  readonly timezone?: string;
  readonly enabled: boolean;
  /**
   * Occurrences missed while no replica ran: true (the default) runs the last one once at
   * start-up, recorded as a catch-up; false records it as missed and runs nothing.
   */
  readonly catchUp: boolean;
  /** The action types of triggers, their templates read with `scheduleSnapshot` (see there). */
  readonly actions: readonly TriggerAction[];
}

/** The idempotency key of one occurrence: the same on every replica, so it is enqueued once. */
export const occurrenceKey = (name: string, occurrence: Date): string => `cron:${name}:${occurrence.toISOString()}`;

/** The name a schedule's action runs are recorded under (beside the triggers' runs). */
export const scheduleRunName = (name: string): string => `cron:${name}`;
