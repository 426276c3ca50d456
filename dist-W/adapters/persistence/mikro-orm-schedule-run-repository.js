import { raw } from '@mikro-orm/core';
import { storableText } from '../../domain/text/storable-text.js';
import { ScheduleRunEntity } from './entities/schedule-run-entity.js';
const toRun = (row) => ({
    schedule: row.schedule,
    occurrence: row.occurrence,
    status: row.status,
    catchUp: row.catchUp,
    runId: row.runId ?? null,
    updatedAt: row.updatedAt,
    error: row.error ?? null,
});
const toRow = (run) => ({
    ...run,
    schedule: storableText(run.schedule),
    runId: run.runId ?? undefined,
    error: run.error === null ? undefined : storableText(run.error),
});
/** `schedule_runs` through MikroORM (PGlite or PostgreSQL alike). */
export class MikroOrmScheduleRunRepository {
    db;
    constructor(db) {
        this.db = db;
    }
    async add(run) {
        const result = await this.db.orm.em
            .fork()
            .createQueryBuilder(ScheduleRunEntity)
            .insert(toRow(run))
            .onConflict(['schedule', 'occurrence'])
            .ignore()
            .execute('run');
        return result.affectedRows > 0;
    }
    async put(run) {
        // Nulls written as nulls: a put replaces every field of the occurrence.
        await this.db.orm.em
            .fork()
            .upsert(ScheduleRunEntity, { ...run, schedule: storableText(run.schedule), error: run.error === null ? null : storableText(run.error) });
    }
    async latest() {
        const em = this.db.orm.em.fork();
        const last = await em
            .createQueryBuilder(ScheduleRunEntity)
            .select(['schedule', raw('max(occurrence) as occurrence')])
            .groupBy('schedule')
            .execute('all', false);
        if (last.length === 0)
            return new Map();
        const rows = await em.find(ScheduleRunEntity, { $or: last.map((row) => ({ schedule: row.schedule, occurrence: new Date(row.occurrence) })) });
        return new Map(rows.map((row) => [row.schedule, toRun(row)]));
    }
    async forSchedule(schedule, limit) {
        const rows = await this.db.orm.em.fork().find(ScheduleRunEntity, { schedule }, { orderBy: { occurrence: 'desc' }, limit });
        return rows.map(toRun);
    }
    async deleteOlderThan(cutoff, limit) {
        const em = this.db.orm.em.fork();
        const old = await em.find(ScheduleRunEntity, { occurrence: { $lt: cutoff } }, { orderBy: { occurrence: 'asc' }, limit, fields: ['schedule', 'occurrence'] });
        if (old.length === 0)
            return 0;
        const latest = await this.latest();
        const expired = old.filter((row) => latest.get(row.schedule)?.occurrence.getTime() !== row.occurrence.getTime());
        if (expired.length > 0)
            await em.nativeDelete(ScheduleRunEntity, { $or: expired.map((row) => ({ schedule: row.schedule, occurrence: row.occurrence })) });
        return old.length;
    }
    async countByStatus() {
        const rows = await this.db.orm.em
            .fork()
            .createQueryBuilder(ScheduleRunEntity)
            .select(['schedule', 'status', raw('count(*) as count')])
            .groupBy(['schedule', 'status'])
            .execute('all', false);
        return rows.map((row) => ({ schedule: row.schedule, status: row.status, count: Number(row.count) }));
    }
}
//# sourceMappingURL=mikro-orm-schedule-run-repository.js.map