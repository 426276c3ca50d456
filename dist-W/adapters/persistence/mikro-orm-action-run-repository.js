import { raw } from '@mikro-orm/core';
import { storableJson } from '../../domain/text/storable-json.js';
import { storableText } from '../../domain/text/storable-text.js';
import { ActionRunEntity } from './entities/action-run-entity.js';
import { GroupCommit } from '../shared/group-commit.js';
import { isUuid } from '../shared/is-uuid.js';
/** Most records one upsert carries. */
const MAX_WRITE = 200;
const toRun = (row) => ({
    runId: row.runId,
    trigger: row.trigger,
    actionIndex: row.actionIndex,
    type: row.type,
    status: row.status,
    attempts: row.attempts,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
    error: row.error ?? null,
    detail: row.detail,
});
export class MikroOrmActionRunRepository {
    db;
    /** Records saved at the same time (many trigger runs at once) share one upsert (GroupCommit). */
    #saves;
    constructor(db) {
        this.db = db;
        this.#saves = new GroupCommit((runs) => this.#upsert(runs), {
            maxItems: MAX_WRITE,
            key: (run) => `${run.runId}#${run.actionIndex}`,
        });
    }
    save(run) {
        return this.#saves.add(run);
    }
    /** One upsert; of two records of one action in it, the later one is kept (as two saves would). */
    async #upsert(runs) {
        const latest = new Map(runs.map((run) => [`${run.runId}#${run.actionIndex}`, run]));
        await this.db.orm.em.fork().upsertMany(ActionRunEntity, [...latest.values()].map((run) => ({ ...run, error: run.error === null ? undefined : storableText(run.error), detail: storableJson({ ...run.detail }) })));
        return runs.map(() => undefined);
    }
    async forRun(runId) {
        if (!isUuid(runId))
            return [];
        const rows = await this.db.orm.em.fork().find(ActionRunEntity, { runId }, { orderBy: { actionIndex: 'asc' } });
        return rows.map(toRun);
    }
    async countByStatus() {
        const rows = await this.db.orm.em
            .fork()
            .createQueryBuilder(ActionRunEntity)
            .select(['status', raw('count(*) as count')])
            .groupBy('status')
            .execute('all', false);
        return Object.fromEntries(rows.map((row) => [row.status, Number(row.count)]));
    }
    /** By trigger run (the key has two columns): the runs of the `limit` oldest records, their old records only. */
    async deleteOlderThan(cutoff, limit) {
        const em = this.db.orm.em.fork();
        const oldest = em
            .createQueryBuilder(ActionRunEntity, 'old')
            .select('runId')
            .where({ finishedAt: { $lt: cutoff } })
            .orderBy({ finishedAt: 'asc' })
            .limit(limit)
            .getNativeQuery();
        return (await em
            .createQueryBuilder(ActionRunEntity)
            .delete({ runId: { $in: oldest }, finishedAt: { $lt: cutoff } })
            .execute('run')).affectedRows;
    }
    async recent(limit) {
        const rows = await this.db.orm.em.fork().find(ActionRunEntity, {}, { orderBy: { finishedAt: 'desc' }, limit });
        return rows.map(toRun);
    }
}
//# sourceMappingURL=mikro-orm-action-run-repository.js.map