import { CronExpressionParser } from 'cron-parser';
import type { CronCalendar } from '../../ports/cron-calendar.js';

/** The zone's name as Intl resolves it (`europe/berlin` → `Europe/Berlin`); undefined when it is no zone. */
const resolveZone = (timezone: string): string | undefined => {
  try {
    return new Intl.DateTimeFormat('en', { timeZone: timezone }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
};

/** Why the time zone is refused, or undefined: one Intl does not know. */
const zoneProblem = (timezone: string): string | undefined =>
  resolveZone(timezone) === undefined ? `timezone: "${timezone}" is not an IANA time zone (e.g. Europe/Berlin, UTC)` : undefined;

/** CronCalendar on cron-parser: 5 fields, or 6 with seconds first; IANA time zones. */
export class CronParserCronCalendar implements CronCalendar {
  problem(expression: string, timezone: string | undefined): string | undefined {
    const refused = timezone === undefined ? undefined : zoneProblem(timezone);
    if (refused !== undefined) return refused;
    try {
      CronExpressionParser.parse(expression, { tz: timezone, strict: false }).next();
      return undefined;
    } catch (error) {
      return `"${expression}" is not a valid cron expression (${(error as Error).message})`;
    }
  }

  next(expression: string, timezone: string | undefined, after: Date): Date | null {
    try {
      return CronExpressionParser.parse(expression, { tz: timezone, currentDate: after }).next().toDate();
    } catch {
      return null;
    }
  }

  previous(expression: string, timezone: string | undefined, at: Date): Date | null {
    try {
      // prev() is strictly before its start: start a millisecond after `at` so that `at` itself counts.
      return CronExpressionParser.parse(expression, { tz: timezone, currentDate: new Date(at.getTime() + 1) })
        .prev()
        .toDate();
    } catch {
      return null;
    }
  }
}
