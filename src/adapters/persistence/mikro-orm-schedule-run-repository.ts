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
    // The rows to keep are left out in the statement itself — a schedule's latest record and its
    // latest occurrence (markers aside) — so that `limit` counts deletable rows only: picking the
    // oldest rows first and sparing the kept ones among them made every batch start at the same
    // kept rows (one per schedule disabled or removed for longer than the retention), and past
    // `limit` of those a batch deleted nothing, for good.
    const markers = [...SCHEDULE_MARKER_STATUSES];
    const inMarkers = markers.map(() => '?').join(', ');
    const rows = (await this.db.orm.em.getConnection().execute(
      `delete from schedule_runs where (schedule, occurrence) in (
         select s.schedule, s.occurrence from schedule_runs s
          where s.occurrence < ?
            and s.occurrence < (select max(l.occurrence) from schedule_runs l where l.schedule = s.schedule)
            and (s.status in (${inMarkers})
                 or s.occurrence < (select max(l.occurrence) from schedule_runs l where l.schedule = s.schedule and l.status not in (${inMarkers})))
          order by s.occurrence
          limit ?
       ) returning 1`,
      [cutoff, ...markers, ...markers, limit],
    )) as unknown[];
    return rows.length;
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
