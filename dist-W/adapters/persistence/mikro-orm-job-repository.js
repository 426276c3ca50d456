import { LockMode, raw } from '@mikro-orm/core';
import { JobEntity } from './entities/job-entity.js';
import { isUuid } from '../shared/is-uuid.js';
const sourceOf = (row) => row.sourceKind === 'trigger'
    ? { kind: 'trigger', name: row.sourceRef ?? '' }
    : row.sourceKind === 'chat'
        ? { kind: 'chat', thread: row.sourceRef ?? '' }
        : { kind: 'api' };
const toJob = (row) => ({
    id: row.id,
    job: row.job,
    status: row.status,
    source: sourceOf(row),
    llmProvider: row.llmProvider ?? null,
    llmModel: row.llmModel ?? null,
    branch: row.branch,
    prUrl: row.prUrl ?? null,
    runUrl: row.runUrl ?? null,
    summary: row.summary ?? null,
    error: row.error ?? null,
    log: row.log ?? null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
});
const toRow = (job) => ({
    id: job.id,
    job: job.job,
    status: job.status,
    sourceKind: job.source.kind,
    sourceRef: job.source.kind === 'trigger' ? job.source.name : job.source.kind === 'chat' ? job.source.thread : null,
    llmProvider: job.llmProvider,
    llmModel: job.llmModel,
    branch: job.branch,
    prUrl: job.prUrl,
    runUrl: job.runUrl,
    summary: job.summary,
    error: job.error,
    log: job.log,
    createdAt: job.createdAt,
    updatedAt: job.updatedAt,
});
export class MikroOrmJobRepository {
    db;
    constructor(db) {
        this.db = db;
    }
    async add(job) {
        const em = this.db.orm.em.fork();
        em.create(JobEntity, toRow(job));
        await em.flush();
    }
    async get(id) {
        if (!isUuid(id))
            return null;
        const row = await this.db.orm.em.fork().findOne(JobEntity, { id });
        return row ? toJob(row) : null;
    }
    async modify(id, change) {
        if (!isUuid(id))
            return null;
        return this.db.orm.em.fork().transactional(async (em) => {
            const row = await em.findOne(JobEntity, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
            if (!row)
                return null;
            const next = change(toJob(row));
            em.assign(row, toRow(next));
            return next;
        });
    }
    async countByStatus() {
        const rows = await this.db.orm.em
            .fork()
            .createQueryBuilder(JobEntity)
            .select(['status', raw('count(*) as count')])
            .groupBy('status')
            .execute('all', false);
        return Object.fromEntries(rows.map((row) => [row.status, Number(row.count)]));
    }
    async list(filter) {
        const rows = await this.db.orm.em
            .fork()
            .find(JobEntity, { status: { $in: [...filter.statuses] } }, { orderBy: { createdAt: 'desc', id: 'desc' }, limit: filter.limit });
        return rows.map(toJob);
    }
}
//# sourceMappingURL=mikro-orm-job-repository.js.map