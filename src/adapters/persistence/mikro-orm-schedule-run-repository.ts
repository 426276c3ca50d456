import { raw } from '@mikro-orm/core';
import { storableText } from '../../domain/text/storable-text.js';
import { SCHEDULE_MARKER_STATUSES, type ScheduleRun, type ScheduleRunRepository, type ScheduleRunStatus } from '../../ports/schedule-run-repository.js';
import type { Database } from './database.js';
import { ScheduleRunEntity } from './entities/schedule-run-entity.js';

type Row = InstanceType<typeof ScheduleRunEntity.class>;

const toRun = (row: Row): ScheduleRun => ({
  schedule: row.schedule,
  occurrence: row.occurrence,
  status: row.status as ScheduleRun['status'],
  catchUp: row.catchUp,
  runId: row.runId ?? null,
  updatedAt: row.updatedAt,
  error: row.error ?? null,
  fingerprint: row.fingerprint ?? null,
});

/** Occurrences only: the markers left out. */
const RUNS = { status: { $nin: [...SCHEDULE_MARKER_STATUSES] } };

const toRow = (run: ScheduleRun) => ({
  ...run,
  schedule: storableText(run.schedule),
  runId: run.runId ?? undefined,
  error: run.error === null ? undefined : storableText(run.error),
  fingerprint: run.fingerprint ?? undefined,
});

/** `schedule_runs` through MikroORM (PGlite or PostgreSQL alike). */
export class MikroOrmScheduleRunRepository implements ScheduleRunRepository {
  constructor(private readonly db: Database) {}

  async add(run: ScheduleRun): Promise<boolean> {
    const result = await this.db.orm.em
      .fork()
      .createQueryBuilder(ScheduleRunEntity)
      .insert(toRow(run))
      .onConflict(['schedule', 'occurrence'])
      .ignore()
      .execute('run');
    return result.affectedRows > 0;
  }

  async put(run: ScheduleRun): Promise<void> {
    // Nulls written as nulls: a put replaces every field of the occurrence.
    await this.db.orm.em.fork().upsert(ScheduleRunEntity, {
      ...run,
      schedule: storableText(run.schedule),
      error: run.error === null ? null : storableText(run.error),
      fingerprint: run.fingerprint ?? null,
    });
  }

  latest(): Promise<Map<string, ScheduleRun>> {
    return this.#last(true);
  }

  lastSeen(): Promise<Map<string, ScheduleRun>> {
    return this.#last(false);
  }

  async #last(runsOnly: boolean): Promise<Map<string, ScheduleRun>> {
    const em = this.db.orm.em.fork();
    const query = em.createQueryBuilder(ScheduleRunEntity).select(['schedule', raw('max(occurrence) as occurrence')]);
    if (runsOnly) query.where(RUNS);
    const last: Array<{ schedule: string; occurrence: Date | string }> = await query.groupBy('schedule').execute('all', false);
    if (last.length === 0) return new Map();
    const rows = await em.find(ScheduleRunEntity, { $or: last.map((row) => ({ schedule: row.schedule, occurrence: new Date(row.occurrence) })) });
    return new Map(rows.map((row) => [row.schedule, toRun(row)]));
  }

  async forSchedule(schedule: string, limit: number): Promise<ScheduleRun[]> {
    const rows = await this.db.orm.em.fork().find(ScheduleRunEntity, { schedule, ...RUNS }, { orderBy: { occurrence: 'desc' }, limit });
    return rows.map(toRun);
  }

  async deleteOlderThan(cutoff: Date, limit: number): Promise<number> {
    const em = this.db.orm.em.fork();
    const old = await em.find(
      ScheduleRunEntity,
      { occurrence: { $lt: cutoff } },
      { orderBy: { occurrence: 'asc' }, limit, fields: ['schedule', 'occurrence'] },
    );
    if (old.length === 0) return 0;
    const [latest, lastSeen] = await Promise.all([this.latest(), this.lastSeen()]);
    const kept = (row: { schedule: string; occurrence: Date }, last: Map<string, ScheduleRun>) =>
      last.get(row.schedule)?.occurrence.getTime() === row.occurrence.getTime();
    const expired = old.filter((row) => !kept(row, latest) && !kept(row, lastSeen));
    if (expired.length > 0) await em.nativeDelete(ScheduleRunEntity, { $or: expired.map((row) => ({ schedule: row.schedule, occurrence: row.occurrence })) });
    return old.length;
  }

  async countByStatus(): Promise<Array<{ schedule: string; status: ScheduleRunStatus; count: number }>> {
    const rows: Array<{ schedule: string; status: string; count: string | number }> = await this.db.orm.em
      .fork()
      .createQueryBuilder(ScheduleRunEntity)
      .select(['schedule', 'status', raw('count(*) as count')])
      .where(RUNS)
      .groupBy(['schedule', 'status'])
      .execute('all', false);
    return rows.map((row) => ({ schedule: row.schedule, status: row.status as ScheduleRunStatus, count: Number(row.count) }));
  }
}
