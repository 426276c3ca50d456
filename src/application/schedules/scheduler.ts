import { occurrenceKey, type Schedule, scheduleDefinition, scheduleZone } from '../../domain/schedules/schedule.js';
import type { Clock } from '../../ports/clock.js';
import type { FingerprintKey } from '../../ports/fingerprint-key.js';
import type { CronCalendar } from '../../ports/cron-calendar.js';
import type { LiveSet } from '../../ports/live-set.js';
import type { Logger } from '../../ports/logger.js';
import type { ScheduleMarkerStatus, ScheduleRun, ScheduleRunRepository } from '../../ports/schedule-run-repository.js';
import type { TaskQueue } from '../../ports/task-queue.js';
import type { Timer } from '../../ports/timer.js';
import { SCHEDULE_RUN_QUEUE, type ScheduleRunTask } from './run-schedule.js';
import { isLegacyScheduleFingerprint, isScheduleFingerprintOf, scheduleFingerprint } from './schedule-fingerprint.js';
import { loopOccurrence, nextScheduledRun } from './scheduled-run.js';

/** The longest wait before the next look: a clock change or a missed timer is noticed within it. */
const MAX_WAIT_MS = 60_000;
/** After a failed enqueue, the next attempt (the occurrences are not lost: `since` stays). */
const RETRY_MS = 1000;
/** Missed occurrences counted at most for the catch-up's log line. */
const MAX_COUNTED = 1000;
/**
 * How much later than planned a look may come before it counts as after a stall (a clock jump
 * forward, a suspended VM, a stopped process): what fell due meanwhile is then judged as after
 * downtime, not run one by one.
 */
const STALL_MS = 60_000;
/** Occurrences a look steps through at most per schedule; past them it takes the last one due directly. */
const MAX_WALK = 1000;

/**
 * Why an enabled schedule's missed occurrences are not caught up, judged from its latest record
 * (`lastSeen`); null when they are: the record is of the same definition (its fingerprint
 * keyed, or unkeyed as versions up to 2026-12-01 recorded it), enabled (a run, or a baseline),
 * or of unknown definition (recorded before fingerprints were: caught up as before, once, and a
 * baseline recorded).
 */
const notCaughtUp = async (last: ScheduleRun | undefined, schedule: Schedule, key: FingerprintKey): Promise<string | null> => {
  if (last === undefined) return 'new';
  if (last.status === 'disabled') return 'enabled again';
  if (last.fingerprint != null && !(await isScheduleFingerprintOf(last.fingerprint, schedule, key))) return 'definition changed';
  return null;
};

/**
 * The schedules' loop, one per replica: it waits for the next occurrence of any enabled
 * schedule and enqueues each due occurrence with the idempotency key `cron:<name>:<ISO time>`,
 * so that however many replicas enqueue it, one task is stored and one worker runs it. Time
 * comes from the Clock and waits from the Timer, so tests drive it.
 */
export class Scheduler {
  #since: Date | undefined;
  #cancel: (() => void) | undefined;
  #running = false;
  /**
   * When the first look not yet done should have come (ms); a look much later follows a stall. A
   * failed look's retries, and a reload's new plan, keep it: a database outage longer than
   * STALL_MS is judged as a stall when the database is back, not stepped through.
   */
  #plannedAt: number | undefined;
  /** A look after a stall failed: its retry judges the occurrences as after a stall too. */
  #stalled = false;
  /** The enabled schedules' definitions (scheduleDefinition) as the last start or reload set them, by name. */
  #definitions = new Map<string, string>();
  /**
   * Schedules enabled anew or changed by a reload since the last look, with the reload's time:
   * only their occurrences after it count (they run at their next occurrence).
   */
  readonly #reloadedAt = new Map<string, Date>();

  constructor(
    private readonly schedules: LiveSet<readonly Schedule[]>,
    private readonly calendar: CronCalendar,
    private readonly queue: TaskQueue,
    private readonly runs: ScheduleRunRepository,
    private readonly clock: Clock,
    private readonly timer: Timer,
    private readonly logger: Logger,
    /** The installation's key the fingerprints are made with (scheduleFingerprint): the triggers' one. */
    private readonly fingerprintKey: FingerprintKey,
  ) {}

  /** Catches up on what was missed while no replica ran, then looks for due occurrences from now on. */
  async start(): Promise<void> {
    this.#since = this.clock.now();
    this.#running = true;
    this.#plannedAt = undefined;
    this.#stalled = false;
    this.#reloadedAt.clear();
    this.#definitions = this.#enabledDefinitions();
    try {
      await this.catchUp(this.#since);
    } catch (error) {
      // The regular occurrences still run; what was missed stays unknown to this replica.
      this.logger.error({ err: error }, 'could not catch up on missed schedule runs');
    }
    this.#plan();
  }

  stop(): void {
    this.#running = false;
    this.#cancel?.();
    this.#cancel = undefined;
  }

  /**
   * After a reload: waits for the next occurrence of the new set (nothing due meanwhile is lost
   * for the schedules the reload left as they were; one it enabled anew or changed runs at its
   * next occurrence after the reload), and records the schedules enabled anew and disabled
   * (markSeen); settles when they are recorded.
   */
  async refresh(): Promise<void> {
    if (!this.#running) return;
    const reloaded = this.clock.now();
    const definitions = this.#enabledDefinitions();
    for (const [name, definition] of definitions) if (this.#definitions.get(name) !== definition) this.#reloadedAt.set(name, reloaded);
    for (const name of this.#reloadedAt.keys()) if (!definitions.has(name)) this.#reloadedAt.delete(name);
    this.#definitions = definitions;
    this.#cancel?.();
    this.#plan();
    try {
      await this.markSeen(this.clock.now());
    } catch (error) {
      // Recorded at the next start-up instead (catchUp); a re-enabled schedule may then be caught up.
      this.logger.warn({ err: error }, 'could not record the schedules enabled or disabled by the reload');
    }
  }

  /**
   * Occurrences missed while no replica ran, judged from the schedule's latest record: with
   * `catch_up` (the default) the latest missed occurrence is enqueued once, as a catch-up;
   * without, it is recorded as missed. Only occurrences missed while this very definition
   * (scheduleFingerprint) was enabled count: a schedule never recorded, seen disabled (or gone)
   * last, or last recorded with another definition has missed nothing, and gets a `baseline`
   * marker now, from which the next start-up judges. Disabled and removed schedules get a
   * `disabled` marker (see markSeen).
   */
  async catchUp(now: Date): Promise<void> {
    const seen = await this.runs.lastSeen();
    for (const schedule of this.#enabled()) {
      const fingerprint = this.#fingerprint(schedule);
      const last = seen.get(schedule.name);
      const reason = await notCaughtUp(last, schedule, this.fingerprintKey);
      if (last === undefined || reason !== null) {
        await this.#baseline(schedule.name, fingerprint, reason ?? 'new', now);
        continue;
      }
      await this.#catchUpOne(schedule, fingerprint, last, now);
      // Recorded before fingerprints were: caught up as before this once; judged by fingerprint
      // from now on. Recorded with an unkeyed fingerprint (up to 2026-12-01): the latest record
      // holds the keyed one from now on, and the retention sweep removes the unkeyed ones in time
      // (it keeps each schedule's latest record for good).
      if (last.fingerprint == null || isLegacyScheduleFingerprint(last.fingerprint)) await this.#mark(schedule.name, 'baseline', fingerprint, now);
    }
    await this.#markDisabled(seen, now);
  }

  /**
   * After a reload: records what catchUp would judge from at the next start-up (a `baseline` for
   * a schedule enabled with a definition not enabled before, a `disabled` marker for one
   * disabled or removed); catches up on nothing (the loop ran meanwhile).
   */
  async markSeen(now: Date): Promise<void> {
    const seen = await this.runs.lastSeen();
    for (const schedule of this.#enabled()) {
      const reason = await notCaughtUp(seen.get(schedule.name), schedule, this.fingerprintKey);
      if (reason !== null) await this.#baseline(schedule.name, this.#fingerprint(schedule), reason, now);
    }
    await this.#markDisabled(seen, now);
  }

  async #catchUpOne(schedule: Schedule, fingerprint: string, last: ScheduleRun, now: Date): Promise<void> {
    const due = this.#lastDue(schedule, last.occurrence, now);
    if (due === null || due.getTime() <= last.occurrence.getTime()) return;
    const missed = this.#count(schedule, last.occurrence, due);
    const fields = { schedule: schedule.name, occurrence: due.toISOString(), lastRecorded: last.occurrence.toISOString(), missed };
    await this.#runOrRecordMissed(schedule, due, `${missed} occurrence${missed === 1 ? '' : 's'}`, fields, now, fingerprint, 'down');
  }

  /**
   * The last occurrence missed while the service was `down` or `stalled`, by the schedule's
   * `catch_up`: enqueued once as a catch-up, or recorded as missed; logged with `fields`.
   */
  async #runOrRecordMissed(
    schedule: Schedule,
    due: Date,
    missed: string,
    fields: object,
    now: Date,
    fingerprint: string,
    when: 'down' | 'stalled',
  ): Promise<void> {
    const why = when === 'down' ? 'while the service was down' : 'while the service was stalled (clock jump or pause)';
    if (schedule.catchUp) {
      if (await this.#enqueue(schedule, due, true)) this.logger.info(fields, `schedule missed occurrences ${why}; running the last one (catch-up)`);
      return;
    }
    const recorded = await this.runs.add({
      schedule: schedule.name,
      occurrence: due,
      status: 'missed',
      catchUp: false,
      runId: null,
      updatedAt: now,
      error: `missed ${when === 'down' ? 'while the service was down' : 'while the service was stalled'} (${missed}); catch_up is false`,
      fingerprint,
    });
    if (recorded) this.logger.warn(fields, `schedule missed occurrences ${why}; not run (catch_up false)`);
  }

  /** A `disabled` marker for each schedule recorded, not seen disabled last, and now disabled or no longer configured. */
  async #markDisabled(seen: ReadonlyMap<string, ScheduleRun>, now: Date): Promise<void> {
    const configured = new Map(this.schedules.current().map((schedule) => [schedule.name, schedule]));
    for (const [name, last] of seen) {
      const schedule = configured.get(name);
      if (last.status === 'disabled' || schedule?.enabled) continue;
      await this.#mark(name, 'disabled', schedule ? this.#fingerprint(schedule) : null, now);
    }
  }

  /** Records that the schedule is enabled with this definition since `at`: nothing before counts as missed. */
  async #baseline(schedule: string, fingerprint: string, reason: string, at: Date): Promise<void> {
    if ((await this.#mark(schedule, 'baseline', fingerprint, at)) && reason !== 'new')
      this.logger.info({ schedule, reason }, 'schedule is enabled with a definition not enabled before; nothing before now is caught up');
  }

  #mark(schedule: string, status: ScheduleMarkerStatus, fingerprint: string | null, at: Date): Promise<boolean> {
    return this.runs.add({ schedule, occurrence: at, status, catchUp: false, runId: null, updatedAt: at, error: null, fingerprint });
  }

  /**
   * Enqueues every occurrence after `since` up to and including `until` (past MAX_WALK of them,
   * the last one only, logged); returns how many this call stored. The loop calls it only for a
   * look that came at most STALL_MS later than planned, so the span is at most two minutes: a
   * later look is judged as after a stall (#catchUpStall) instead.
   */
  async enqueueDue(since: Date, until: Date): Promise<number> {
    let stored = 0;
    for (const schedule of this.#enabled()) {
      let due: Date[] = [];
      let walked = 0;
      const from = this.#sinceFor(schedule, since);
      for (let at = nextScheduledRun(this.calendar, schedule, from); at !== null && at <= until; ) {
        if (++walked > MAX_WALK) {
          const last = this.#lastDue(schedule, from, until);
          due = last === null ? [] : [last];
          this.logger.warn(
            { schedule: schedule.name, since: since.toISOString(), until: until.toISOString() },
            'schedule has too many occurrences due at once; enqueueing the last one only',
          );
          break;
        }
        due.push(at);
        at = this.calendar.next(schedule.schedule, scheduleZone(schedule), at);
      }
      for (const occurrence of due) if (await this.#enqueue(schedule, occurrence, false)) stored++;
    }
    return stored;
  }

  /**
   * After a stall (the look came far later than planned): what fell due after `since` is judged
   * as after downtime, with the schedule's `catch_up`: the last occurrence due is enqueued once,
   * as a catch-up, or recorded as missed; found directly, not by stepping through them all.
   */
  async #catchUpStall(since: Date, now: Date): Promise<void> {
    for (const schedule of this.#enabled()) {
      const from = this.#sinceFor(schedule, since);
      const due = this.#lastDue(schedule, from, now);
      if (due === null) continue;
      const missed = this.#count(schedule, from, due);
      const fields = { schedule: schedule.name, occurrence: due.toISOString(), since: since.toISOString(), missed };
      const counted = `${missed}${missed >= MAX_COUNTED ? '+' : ''} occurrence${missed === 1 ? '' : 's'}`;
      await this.#runOrRecordMissed(schedule, due, counted, fields, now, this.#fingerprint(schedule), 'stalled');
    }
  }

  /** When the next occurrence of any enabled schedule after `after` falls; null when none will. */
  nextOccurrence(after: Date): Date | null {
    let first: Date | null = null;
    for (const schedule of this.#enabled()) {
      const next = nextScheduledRun(this.calendar, schedule, this.#sinceFor(schedule, after));
      if (next !== null && (first === null || next < first)) first = next;
    }
    return first;
  }

  /** One look: enqueues what fell due since the last look, then waits for the next occurrence. */
  async tick(): Promise<void> {
    // A tick left over from before a stop does nothing.
    if (!this.#running) return;
    const since = this.#since ?? this.clock.now();
    const now = this.clock.now();
    this.#stalled ||= this.#plannedAt !== undefined && now.getTime() - this.#plannedAt > STALL_MS;
    try {
      if (this.#stalled) await this.#catchUpStall(since, now);
      else await this.enqueueDue(since, now);
      this.#since = now;
      this.#stalled = false;
      this.#plannedAt = undefined;
      for (const [name, at] of this.#reloadedAt) if (at <= now) this.#reloadedAt.delete(name);
      this.#plan();
    } catch (error) {
      this.logger.warn({ err: error }, 'could not enqueue due schedule runs; trying again');
      this.#cancel?.();
      // #plannedAt stays that of the look that failed: a retry more than STALL_MS after it (the
      // database down for minutes) judges what fell due meanwhile as after a stall.
      if (this.#running) this.#cancel = this.timer.after(RETRY_MS, () => void this.tick());
    }
  }

  #plan(): void {
    if (!this.#running) return;
    const now = this.clock.now();
    const next = this.nextOccurrence(this.#since ?? now);
    const wait = next === null ? MAX_WAIT_MS : Math.min(MAX_WAIT_MS, Math.max(0, next.getTime() - now.getTime()));
    // One timer at a time: a reload planned one while a tick waited on the database, and this
    // plan (the tick's) replaces it rather than starting a second loop beside it.
    this.#cancel?.();
    // A look still to be done (a reload re-plans while a failed look is retried) keeps its time.
    this.#plannedAt = Math.min(this.#plannedAt ?? Number.POSITIVE_INFINITY, now.getTime() + wait);
    this.#cancel = this.timer.after(wait, () => void this.tick());
  }

  /**
   * The schedule's last occurrence at or before `now` as the loop runs them, when later than
   * `last` (the last recorded one); null when there is none.
   */
  #lastDue(schedule: Schedule, last: Date, now: Date): Date | null {
    let due = loopOccurrence(this.calendar, schedule, now);
    if (due === null) return null;
    // On the day the clocks go forward, next() runs a time the change skips (02:30 at 03:30),
    // which previous() does not find: it lies between previous()'s answer and now.
    for (let at = this.calendar.next(schedule.schedule, scheduleZone(schedule), due); at !== null && at <= now; ) {
      due = at;
      at = this.calendar.next(schedule.schedule, scheduleZone(schedule), at);
    }
    return due > last ? due : null;
  }

  #enabled(): Schedule[] {
    return this.schedules.current().filter((schedule) => schedule.enabled);
  }

  #enabledDefinitions(): Map<string, string> {
    return new Map(this.#enabled().map((schedule) => [schedule.name, scheduleDefinition(schedule)]));
  }

  /** Where the schedule's occurrences count from: `since`, or the reload that enabled or changed it when later. */
  #sinceFor(schedule: Schedule, since: Date): Date {
    const reloaded = this.#reloadedAt.get(schedule.name);
    return reloaded !== undefined && reloaded > since ? reloaded : since;
  }

  async #enqueue(schedule: Schedule, occurrence: Date, catchUp: boolean): Promise<boolean> {
    const fingerprint = this.#fingerprint(schedule);
    const task: ScheduleRunTask = { schedule: schedule.name, occurrence: occurrence.toISOString(), catchUp, fingerprint };
    const id = await this.queue.enqueue(SCHEDULE_RUN_QUEUE, task, { key: occurrenceKey(schedule.name, occurrence) });
    if (id === null) return false;
    await this.runs.add({ schedule: schedule.name, occurrence, status: 'queued', catchUp, runId: id, updatedAt: this.clock.now(), error: null, fingerprint });
    return true;
  }

  #fingerprint(schedule: Schedule): string {
    return scheduleFingerprint(schedule, this.fingerprintKey);
  }

  #count(schedule: Schedule, after: Date, until: Date): number {
    let count = 0;
    for (let at = this.calendar.next(schedule.schedule, scheduleZone(schedule), after); at !== null && at <= until && count < MAX_COUNTED; ) {
      count++;
      at = this.calendar.next(schedule.schedule, scheduleZone(schedule), at);
    }
    return count;
  }
}
