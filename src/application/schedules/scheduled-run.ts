import { type Schedule, scheduleZone } from '../../domain/schedules/schedule.js';
import type { CronCalendar } from '../../ports/cron-calendar.js';

/**
 * How far back a time zone's clocks may have gone for an occurrence to lie in the repeated
 * hour: a daylight-saving change repeats at most an hour (two in Antarctica/Troll).
 */
const REPEAT_SPAN_MS = 2 * 3_600_000;

const offsetFormats = new Map<string, Intl.DateTimeFormat>();
/** The zone's offset from UTC at `at` (whole seconds), in ms. */
const zoneOffset = (timezone: string, at: number): number => {
  let format = offsetFormats.get(timezone);
  if (format === undefined) {
    const numeric = 'numeric';
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: numeric,
      month: numeric,
      day: numeric,
      hour: numeric,
      minute: numeric,
      second: numeric,
    });
    offsetFormats.set(timezone, format);
  }
  const part = Object.fromEntries(format.formatToParts(at).map((item) => [item.type, Number(item.value)]));
  const second = Math.floor(at / 1000) * 1000;
  return Date.UTC(part.year, part.month - 1, part.day, part.hour, part.minute, part.second) - second;
};

/**
 * The instant in `(at - REPEAT_SPAN_MS, at]` at which the zone's clocks changed (went back: the
 * start of the repeated hour's second pass; or forward: the end of the skipped time); null when
 * they did not (or the zone is unknown).
 */
const clocksChanged = (timezone: string, at: number): number | null => {
  try {
    let before = Math.floor((at - REPEAT_SPAN_MS) / 1000) * 1000;
    let after = Math.floor(at / 1000) * 1000;
    const old = zoneOffset(timezone, before);
    if (zoneOffset(timezone, after) === old) return null;
    // Zones change on whole seconds: the first second with the new offset.
    while (after - before > 1000) {
      const middle = before + Math.floor((after - before) / 2000) * 1000;
      if (zoneOffset(timezone, middle) === old) before = middle;
      else after = middle;
    }
    return after;
  } catch {
    return null;
  }
};

/**
 * An occurrence at or before `at` that the scheduler's loop runs, the last one previous() finds
 * apart from those the loop never runs; null when previous() finds none. The loop walks with
 * `next()`, which on the night the clocks go back steps from the first pass of the repeated hour
 * over the second for a schedule of fixed hours (a daily 02:30 runs once, a `0,30 2` twice, not
 * four times), while previous() finds the second pass's times too (and, where the clocks go
 * forward by half an hour, as on Lord Howe Island, next() steps over the first time after the
 * change that previous() finds). Taken as occurrences, they would run a second time that day
 * under keys of their own (or be recorded as missed).
 */
export const loopOccurrence = (calendar: CronCalendar, schedule: Schedule, at: Date): Date | null => {
  const zone = scheduleZone(schedule);
  const found = calendar.previous(schedule.schedule, zone, at);
  if (found === null) return null;
  const change = clocksChanged(zone, found.getTime());
  if (change === null) return found;
  // The loop goes from the last occurrence before the change to its next(): what lies between, it never runs.
  const before = calendar.previous(schedule.schedule, zone, new Date(change - 1));
  if (before === null) return found;
  const resumed = calendar.next(schedule.schedule, zone, before);
  return resumed !== null && found < resumed ? before : found;
};

/**
 * The schedule's first occurrence after `after` as the scheduler runs it — the one function both
 * the Scheduler and `crons check` (and the admin UI) ask, so that what they show is what runs.
 * Found by `next()` from the schedule's last occurrence at or before `after` (loopOccurrence),
 * not from `after` itself: a search that starts inside a daylight-saving change (which `after`,
 * the last look, moves into) skips the day's occurrence of a time the change skips, or finds the
 * repeated hour's time a second time; one that starts from such an occurrence does neither (an
 * interval schedule still runs in both repeated hours, as cron does). Null when none will come.
 */
export const nextScheduledRun = (calendar: CronCalendar, schedule: Schedule, after: Date): Date | null => {
  const zone = scheduleZone(schedule);
  const from = loopOccurrence(calendar, schedule, after);
  if (from === null) return calendar.next(schedule.schedule, zone, after);
  let at = calendar.next(schedule.schedule, zone, from);
  while (at !== null && at <= after) at = calendar.next(schedule.schedule, zone, at);
  return at;
};
