/**
 * Reads cron expressions (5 fields, or 6 with seconds first) in a time zone; `undefined` is UTC
 * (DEFAULT_SCHEDULE_ZONE), never the zone of the process.
 */
export interface CronCalendar {
  /**
   * Why the expression or the time zone is refused, or undefined when both are valid. A message
   * about the time zone starts with `timezone: `.
   */
  problem(expression: string, timezone: string | undefined): string | undefined;
  /** The first occurrence strictly after `after`; null when there is none (an impossible date). */
  next(expression: string, timezone: string | undefined, after: Date): Date | null;
  /** The last occurrence at or before `at`; null when there is none. */
  previous(expression: string, timezone: string | undefined, at: Date): Date | null;
}
