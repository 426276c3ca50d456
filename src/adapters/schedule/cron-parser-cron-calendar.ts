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

/**
 * Why the time zone is refused, or undefined. Intl also takes a name in another case and a fixed
 * offset (`+05:00`); the documentation promises IANA names as written (and an offset does not
 * follow daylight-saving changes, which a reader of `timezone` expects), so both are refused,
 * naming the canonical spelling where there is one. An alias (`GMT`, `US/Eastern`) is an IANA name.
 */
const zoneProblem = (timezone: string): string | undefined => {
  const resolved = resolveZone(timezone);
  if (resolved === undefined) return `timezone: "${timezone}" is not an IANA time zone (e.g. Europe/Berlin, UTC)`;
  if (/^[+-]/.test(resolved))
    return `timezone: "${timezone}" is an offset, not an IANA time zone (e.g. Europe/Berlin, UTC): an offset does not follow daylight-saving changes`;
  if (resolved !== timezone && resolved.toLowerCase() === timezone.toLowerCase())
    return `timezone: "${timezone}" is not an IANA time zone as written; write "${resolved}"`;
  return undefined;
};

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
