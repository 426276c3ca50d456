import { CronExpressionParser } from 'cron-parser';
import { shownInput } from '../../domain/errors/shown-input.js';
import type { CronCalendar } from '../../ports/cron-calendar.js';

/** The most characters of a refused expression or time zone (or of the library's reason) a problem repeats. */
const SHOWN_LENGTH = 200;

/**
 * How far back the search for a last occurrence by next() goes, widening in turn, when
 * cron-parser's prev() fails: two days, a month, a year, eight years (a 29 February between
 * two non-leap centuries).
 */
const FALLBACK_SPANS_MS = [2, 32, 367, 8 * 366].map((days) => days * 86_400_000);
/** Expressions and zones whose fallback answers are kept: at most this many. */
const MAX_FALLBACKS = 1000;
/**
 * Answers kept per expression and zone: the loop asks both for the day's occurrence and for the
 * one before the clocks changed (see the Scheduler's #loopOccurrence), and prev() fails for both.
 */
const FALLBACKS_PER_KEY = 4;
type Fallback = { occurrence: Date; following: Date | null };

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
  resolveZone(timezone) === undefined ? `timezone: "${shownInput(timezone, SHOWN_LENGTH)}" is not an IANA time zone (e.g. Europe/Berlin, UTC)` : undefined;

/** CronCalendar on cron-parser: 5 fields, or 6 with seconds first; IANA time zones. */
export class CronParserCronCalendar implements CronCalendar {
  /**
   * Per expression and zone, the last occurrences the fallback found, each with the occurrence
   * after it: an `at` between them has that last occurrence, without prev() failing again
   * (slowly) at each look.
   */
  readonly #fallbacks = new Map<string, Fallback[]>();

  problem(expression: string, timezone: string | undefined): string | undefined {
    const refused = timezone === undefined ? undefined : zoneProblem(timezone);
    if (refused !== undefined) return refused;
    try {
      CronExpressionParser.parse(expression, { tz: timezone, strict: false }).next();
      return undefined;
    } catch (error) {
      return `"${shownInput(expression, SHOWN_LENGTH)}" is not a valid cron expression (${shownInput(String((error as Error).message), SHOWN_LENGTH)})`;
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
    const key = `${timezone ?? ''}\n${expression}`;
    const kept = this.#fallbacks.get(key) ?? [];
    const known = kept.find(({ occurrence, following }) => occurrence <= at && (following === null || at < following));
    if (known !== undefined) return known.occurrence;
    try {
      // prev() is strictly before its start: start a millisecond after `at` so that `at` itself counts.
      return CronExpressionParser.parse(expression, { tz: timezone, currentDate: new Date(at.getTime() + 1) })
        .prev()
        .toDate();
    } catch {
      // Where the zone's clocks skip the expression's time (midnight in America/Santiago on the
      // day summer time starts), prev() gives up after many iterations and throws.
      const found = this.#lastByNext(expression, timezone, at);
      if (found !== null) {
        if (this.#fallbacks.size >= MAX_FALLBACKS && !this.#fallbacks.has(key)) this.#fallbacks.clear();
        this.#fallbacks.set(key, [{ occurrence: found, following: this.next(expression, timezone, found) }, ...kept].slice(0, FALLBACKS_PER_KEY));
      }
      return found;
    }
  }

  /**
   * The last occurrence at or before `at` found with next() alone: bisects a span back from `at`
   * for the latest start whose next() is at or before `at` (some forty next() calls).
   */
  #lastByNext(expression: string, timezone: string | undefined, at: Date): Date | null {
    const end = at.getTime();
    for (const span of FALLBACK_SPANS_MS) {
      let low = end - span;
      const first = this.next(expression, timezone, new Date(low));
      if (first === null || first.getTime() > end) continue;
      // next(low) is at or before `at`; next(high) is not (none lies in (high, at]).
      let high = end;
      while (high - low > 1) {
        const middle = low + Math.floor((high - low) / 2);
        const found = this.next(expression, timezone, new Date(middle));
        if (found !== null && found.getTime() <= end) low = middle;
        else high = middle;
      }
      return this.next(expression, timezone, new Date(low));
    }
    return null;
  }
}
