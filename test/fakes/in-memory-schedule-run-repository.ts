import { SCHEDULE_MARKER_STATUSES, type ScheduleRun, type ScheduleRunRepository, type ScheduleRunStatus } from '../../src/ports/schedule-run-repository.js';

const isMarker = (run: ScheduleRun): boolean => (SCHEDULE_MARKER_STATUSES as readonly string[]).includes(run.status);
/** As the table stores it: an absent fingerprint is null. */
const stored = (run: ScheduleRun): ScheduleRun => ({ ...run, fingerprint: run.fingerprint ?? null });

/** ScheduleRunRepository in memory, keyed by schedule and occurrence like the table. */
export class InMemoryScheduleRunRepository implements ScheduleRunRepository {
  readonly #runs = new Map<string, ScheduleRun>();

  #key(run: Pick<ScheduleRun, 'schedule' | 'occurrence'>): string {
    return `${run.schedule}\u0000${run.occurrence.toISOString()}`;
  }

  async add(run: ScheduleRun): Promise<boolean> {
    if (this.#runs.has(this.#key(run))) return false;
    this.#runs.set(this.#key(run), stored(run));
    return true;
  }

  async put(run: ScheduleRun): Promise<void> {
    this.#runs.set(this.#key(run), stored(run));
  }

  latest(): Promise<Map<string, ScheduleRun>> {
    return this.#last(true);
  }

  lastSeen(): Promise<Map<string, ScheduleRun>> {
    return this.#last(false);
  }

  async #last(runsOnly: boolean): Promise<Map<string, ScheduleRun>> {
    const latest = new Map<string, ScheduleRun>();
    for (const run of this.#runs.values()) {
      if (runsOnly && isMarker(run)) continue;
      const seen = latest.get(run.schedule);
      if (!seen || seen.occurrence < run.occurrence) latest.set(run.schedule, run);
    }
    return latest;
  }

  async forSchedule(schedule: string, limit: number): Promise<ScheduleRun[]> {
    return [...this.#runs.values()]
      .filter((run) => run.schedule === schedule && !isMarker(run))
      .sort((a, b) => b.occurrence.getTime() - a.occurrence.getTime())
      .slice(0, limit);
  }

  async deleteOlderThan(cutoff: Date, limit: number): Promise<number> {
    const [latest, lastSeen] = await Promise.all([this.latest(), this.lastSeen()]);
    const expired = [...this.#runs.values()]
      .filter((run) => run.occurrence < cutoff && latest.get(run.schedule) !== run && lastSeen.get(run.schedule) !== run)
      .sort((a, b) => a.occurrence.getTime() - b.occurrence.getTime())
      .slice(0, limit);
    for (const run of expired) this.#runs.delete(this.#key(run));
    return expired.length;
  }

  async countByStatus(): Promise<Array<{ schedule: string; status: ScheduleRunStatus; count: number }>> {
    const counts = new Map<string, { schedule: string; status: ScheduleRunStatus; count: number }>();
    for (const run of this.#runs.values()) {
      if (isMarker(run)) continue;
      const key = `${run.schedule}\u0000${run.status}`;
      const entry = counts.get(key) ?? { schedule: run.schedule, status: run.status as ScheduleRunStatus, count: 0 };
      entry.count++;
      counts.set(key, entry);
    }
    return [...counts.values()];
  }
}
