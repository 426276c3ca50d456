import { CronExpressionParser } from 'cron-parser';
import { shownInput } from '../../domain/errors/shown-input.js';
import { DEFAULT_SCHEDULE_ZONE } from '../../domain/schedules/schedule.js';
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
 * one before the clocks changed (see loopOccurrence in scheduled-run.ts), and prev() fails for both.
 */
const FALLBACKS_PER_KEY = 4;
type Fallback = { occurrence: Date; following: Date | null };
/**
 * A span of starts for which cron-parser's next() gives up (see #nextAcrossChange), with the
 * answer found instead: every start in [from, occurrence) has it.
 */
type NextFallback = { from: Date; occurrence: Date };
/** cron-parser's message when next() or prev() iterated too long without an answer. */
const LOOP_LIMIT = 'loop limit exceeded';
/** How far after a start next() may be failing because of the zone's clocks changing (a day and a little). */
const CHANGE_SPAN_MS = 49 * 3_600_000;
/** Occurrences before the change walked back at most to the first after the start. */
const MAX_WALK_BACK = 1000;

/** The zone's name as Intl resolves it (`europe/berlin` → `Europe/Berlin`); undefined when it is no zone. */
const resolveZone = (timezone: string): string | undefined => {
  try {
    return new Intl.DateTimeFormat('en', { timeZone: timezone }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
};

const offsetFormats = new Map<string, Intl.DateTimeFormat>();
/** The zone's offset from UTC at `at`, as Intl names it (`GMT+11:00`); the process's zone when none is given. */
const offsetName = (timezone: string | undefined, at: number): string => {
  let format = offsetFormats.get(timezone ?? '');
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', { timeZone: timezone, timeZoneName: 'longOffset' });
    offsetFormats.set(timezone ?? '', format);
  }
  return format.formatToParts(at).find((part) => part.type === 'timeZoneName')?.value ?? '';
};

/** The first whole second in (from, until] at which the zone's offset differs from its offset at `from`; null when none (or the zone is unknown). */
const zoneChange = (timezone: string | undefined, from: number, until: number): number | null => {
  try {
    const old = offsetName(timezone, from);
    let low = from;
    let high = until;
    // Offsets change at most once a day or so: an hourly scan finds the first change, a bisection its second.
    for (let at = from + 3_600_000; at < until + 3_600_000; at += 3_600_000) {
      const point = Math.min(at, until);
      if (offsetName(timezone, point) !== old) {
        high = point;
        break;
      }
      low = point;
      if (point === until) return null;
    }
    while (high - low > 1000) {
      const middle = low + Math.floor((high - low) / 2000) * 1000;
      if (offsetName(timezone, middle) === old) low = middle;
      else high = middle;
    }
    return high;
  } catch {
    return null;
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
  /** Per expression and zone, the spans of starts for which next() gave up, with their answer. */
  readonly #nextFallbacks = new Map<string, NextFallback[]>();

  /** `now`: the moment a check looks for the next occurrence from (tests give one). */
  constructor(private readonly now: () => Date = () => new Date()) {}

  problem(expression: string, given: string | undefined): string | undefined {
    const timezone = given ?? DEFAULT_SCHEDULE_ZONE;
    const refused = zoneProblem(timezone);
    if (refused !== undefined) return refused;
    try {
      CronExpressionParser.parse(expression, { tz: timezone, strict: false, currentDate: this.now() }).next();
      return undefined;
    } catch (error) {
      // A valid expression whose next run cron-parser cannot find from now (the zone's clocks
      // change before it, see #nextAcrossChange) is valid: found as the scheduler finds it.
      if (String((error as Error).message).includes(LOOP_LIMIT) && this.next(expression, timezone, this.now()) !== null) return undefined;
      return `"${shownInput(expression, SHOWN_LENGTH)}" is not a valid cron expression (${shownInput(String((error as Error).message), SHOWN_LENGTH)})`;
    }
  }

  next(expression: string, given: string | undefined, after: Date): Date | null {
    const timezone = given ?? DEFAULT_SCHEDULE_ZONE;
    const key = `${timezone}\n${expression}`;
    const kept = this.#nextFallbacks.get(key) ?? [];
    const known = kept.find(({ from, occurrence }) => from <= after && after < occurrence);
    if (known !== undefined) return known.occurrence;
    try {
      return CronExpressionParser.parse(expression, { tz: timezone, currentDate: after }).next().toDate();
    } catch (error) {
      if (!String((error as Error).message).includes(LOOP_LIMIT)) return null;
      // Seconds of CPU each time: the answer is kept for the starts up to it.
      const found = this.#nextAcrossChange(expression, timezone, after);
      if (found !== null) {
        if (this.#nextFallbacks.size >= MAX_FALLBACKS && !this.#nextFallbacks.has(key)) this.#nextFallbacks.clear();
        const merged = kept.filter(({ occurrence }) => occurrence.getTime() !== found.getTime());
        const from = kept.find(({ occurrence }) => occurrence.getTime() === found.getTime())?.from;
        this.#nextFallbacks.set(key, [{ from: from !== undefined && from < after ? from : after, occurrence: found }, ...merged].slice(0, FALLBACKS_PER_KEY));
      }
      return found;
    }
  }

  /**
   * The first occurrence after `after` where cron-parser's next() gives up: it iterates for
   * seconds and throws when the zone's clocks change before the next occurrence in some ways
   * (`0,30 2 * * *` in Australia/Lord_Howe, whose clocks go back half an hour at 02:00, for the
   * whole day before). Found on either side of the change: the last occurrence before it by
   * prev() (walked back to the first after `after`), else next() from the change on. Null when
   * the clocks do not change within CHANGE_SPAN_MS, or no answer is found either way.
   */
  #nextAcrossChange(expression: string, timezone: string | undefined, after: Date): Date | null {
    const change = zoneChange(timezone, after.getTime(), after.getTime() + CHANGE_SPAN_MS);
    if (change === null) return null;
    let before: Date | null = null;
    try {
      // prev() is strictly before its start: the last occurrence before the change.
      let at = CronExpressionParser.parse(expression, { tz: timezone, currentDate: new Date(change) })
        .prev()
        .toDate();
      for (let steps = 0; at > after; steps++) {
        // A dense expression is not what next() gives up on; should one be, no answer beats a long walk.
        if (steps >= MAX_WALK_BACK) return null;
        before = at;
        at = CronExpressionParser.parse(expression, { tz: timezone, currentDate: at }).prev().toDate();
      }
    } catch {
      // No earlier occurrence found this way: the one after the change is the answer.
    }
    if (before !== null) return before;
    try {
      return CronExpressionParser.parse(expression, { tz: timezone, currentDate: new Date(change - 1) })
        .next()
        .toDate();
    } catch {
      return null;
    }
  }

  previous(expression: string, given: string | undefined, at: Date): Date | null {
    const timezone = given ?? DEFAULT_SCHEDULE_ZONE;
    const key = `${timezone}\n${expression}`;
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
