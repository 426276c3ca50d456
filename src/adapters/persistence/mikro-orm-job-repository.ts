import { LockMode, raw } from '@mikro-orm/core';
import { FINISHED, type Job, type JobSource, type JobStatus } from '../../domain/jobs/job.js';
import type { JobRepository, NewestFirstFilter, OldestFirstFilter } from '../../ports/job-repository.js';
import type { Database } from './database.js';
import { JobEntity } from './entities/job-entity.js';
import { JobMergeCommitEntity } from './entities/job-merge-commit-entity.js';
import { isUuid } from '../../domain/ids/is-uuid.js';
import { storableJob } from '../../domain/jobs/storable-job.js';

type Row = InstanceType<typeof JobEntity.class>;

/** A commit id as stored (`job_merge_commits.sha`, varchar(64)): SHA-1 or SHA-256 hex, lower case; anything else is no commit. */
const commitsOf = (shas: readonly string[]): string[] => [
  ...new Set(shas.map((sha) => sha.toLowerCase()).filter((sha) => /^[0-9a-f]{40}$|^[0-9a-f]{64}$/.test(sha))),
];

const sourceOf = (row: Row): JobSource =>
  row.sourceKind === 'trigger'
    ? { kind: 'trigger', name: row.sourceRef ?? '' }
    : row.sourceKind === 'chat'
      ? { kind: 'chat', thread: row.sourceRef ?? '' }
      : { kind: 'api' };

const toJob = (row: Row): Job => ({
  id: row.id,
  job: row.job,
  status: row.status as JobStatus,
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

const toRow = (job: Job) => ({
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

/**
 * The advisory lock that takes the creations within the queue limit one after the other, on
 * every replica: the pair (the gateway's own "agw\0", "jobs"). A key of two integers is apart
 * from the one-bigint keys (the migrations' lock, pg-boss's) whatever their values.
 */
const QUEUE_LIMIT_LOCK = [0x61677700, 0x6a6f6273] as const;

export class MikroOrmJobRepository implements JobRepository {
  constructor(private readonly db: Database) {}

  async add(job: Job): Promise<void> {
    const em = this.db.orm.em.fork();
    em.create(JobEntity, toRow(storableJob(job)));
    await em.flush();
  }

  async addWithinQueueLimit(job: Job, limit: number): Promise<boolean> {
    if (!(Number.isInteger(limit) && limit >= 1)) throw new Error(`limit must be a whole number of at least 1, not ${limit}`);
    return this.db.orm.em.fork().transactional(async (em) => {
      // Held until the transaction ends: the next creation (on any replica) counts after this
      // one's job is committed or given up. Each statement of READ COMMITTED reads anew, so the
      // count below sees every job stored by the creations that held the lock before.
      await em.execute('select pg_advisory_xact_lock(?, ?)', [...QUEUE_LIMIT_LOCK]);
      // At most `limit` entries of jobs_status_created_idx, however long the backlog.
      const [row] = await em.execute<Array<{ queued: number | string }>>(
        'select count(*) as queued from (select 1 from jobs where status = ? limit ?) as waiting',
        ['queued', limit],
      );
      if (Number(row?.queued ?? 0) >= limit) return false;
      em.create(JobEntity, toRow(storableJob(job)));
      await em.flush();
      return true;
    });
  }

  async get(id: string): Promise<Job | null> {
    if (!isUuid(id)) return null;
    const row = await this.db.orm.em.fork().findOne(JobEntity, { id });
    return row ? toJob(row) : null;
  }

  async modify(id: string, change: (job: Job) => Job): Promise<Job | null> {
    if (!isUuid(id)) return null;
    return this.db.orm.em.fork().transactional(async (em) => {
      const row = await em.findOne(JobEntity, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!row) return null;
      // Texts from outside (an agent's output, a code host's URLs) made storable: see storableJob.
      const next = storableJob(change(toJob(row)));
      em.assign(row, toRow(next));
      return next;
    });
  }

  async countByStatus(): Promise<Partial<Record<JobStatus, number>>> {
    const rows: Array<{ status: JobStatus; count: string | number }> = await this.db.orm.em
      .fork()
      .createQueryBuilder(JobEntity)
      .select(['status', raw('count(*) as count')])
      .groupBy('status')
      .execute('all', false);
    return Object.fromEntries(rows.map((row) => [row.status, Number(row.count)]));
  }

  async list(filter: NewestFirstFilter): Promise<Job[]> {
    const { before } = filter;
    // (created_at, id) < (before): written with created_at <= before first, so that the index on
    // (status, created_at) bounds the scan.
    const rows = await this.db.orm.em.fork().find(
      JobEntity,
      {
        status: { $in: [...filter.statuses] },
        ...(before !== undefined && {
          $and: [{ createdAt: { $lte: before.createdAt } }, { $or: [{ createdAt: { $lt: before.createdAt } }, { id: { $lt: before.id } }] }],
        }),
      },
      { orderBy: { createdAt: 'desc', id: 'desc' }, limit: filter.limit },
    );
    return rows.map(toJob);
  }

  async listOldestFirst(filter: OldestFirstFilter): Promise<Job[]> {
    const { after, createdBefore } = filter;
    // (created_at, id) > (after): written with created_at >= after first, so that the index on
    // (status, created_at) bounds the scan.
    const rows = await this.db.orm.em.fork().find(
      JobEntity,
      {
        status: { $in: [...filter.statuses] },
        ...(createdBefore !== undefined && { createdAt: { $lt: createdBefore } }),
        ...(after !== undefined && {
          $and: [{ createdAt: { $gte: after.createdAt } }, { $or: [{ createdAt: { $gt: after.createdAt } }, { id: { $gt: after.id } }] }],
        }),
      },
      { orderBy: { createdAt: 'asc', id: 'asc' }, limit: filter.limit },
    );
    return rows.map(toJob);
  }

  async listAwaitingNotice(filter: { readonly changedBefore: Date; readonly limit: number }): Promise<Job[]> {
    // The partial index jobs_awaiting_notice_idx holds exactly these rows.
    const rows = await this.db.orm.em
      .fork()
      .find(
        JobEntity,
        { sourceKind: 'chat', noticeQueuedAt: null, status: { $in: [...FINISHED] }, updatedAt: { $lt: filter.changedBefore } },
        { orderBy: { updatedAt: 'asc', id: 'asc' }, limit: filter.limit },
      );
    return rows.map(toJob);
  }

  async markNoticeQueued(id: string, at: Date): Promise<void> {
    if (!isUuid(id)) return;
    await this.db.orm.em.fork().nativeUpdate(JobEntity, { id, noticeQueuedAt: null }, { noticeQueuedAt: at });
  }

  async recordMergeCommits(id: string, shas: readonly string[], at: Date): Promise<void> {
    const commits = commitsOf(shas);
    if (commits.length === 0) return;
    // One statement; a commit recorded before (another attempt, another replica) is kept.
    await this.db.orm.em
      .fork()
      .createQueryBuilder(JobMergeCommitEntity)
      .insert(commits.map((sha) => ({ sha, jobId: id, createdAt: at })))
      .onConflict('sha')
      .ignore()
      .execute();
  }

  async jobOfMergeCommit(shas: readonly string[]): Promise<string | null> {
    const commits = commitsOf(shas);
    if (commits.length === 0) return null;
    const row = await this.db.orm.em.fork().findOne(JobMergeCommitEntity, { sha: { $in: commits } }, { fields: ['jobId'] });
    return row?.jobId ?? null;
  }
}
