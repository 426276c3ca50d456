import { isFinished, type Job, type JobStatus } from '../../src/domain/jobs/job.js';
import type { JobRepository, NewestFirstFilter, OldestFirstFilter } from '../../src/ports/job-repository.js';
import { storableJob } from '../../src/domain/jobs/storable-job.js';

/** A commit id as the database stores it (40 or 64 hex digits, lower case); anything else is not recorded. */
const COMMIT = /^[0-9a-f]{40}$|^[0-9a-f]{64}$/;

/** JobRepository in a Map; passes the same contract suite as the database adapter. */
export class InMemoryJobRepository implements JobRepository {
  readonly jobs = new Map<string, Job>();
  /** When each job's chat notice was recorded as queued (markNoticeQueued). */
  readonly noticesQueued = new Map<string, Date>();
  failAdd = false;
  /** Recorded merge commits (recordMergeCommits): commit → job id. */
  readonly mergeCommits = new Map<string, string>();

  async add(job: Job): Promise<void> {
    if (this.failAdd) throw new Error('database down');
    if (this.jobs.has(job.id)) throw new Error(`A job with id ${job.id} exists`);
    this.jobs.set(job.id, storableJob(job));
  }
  /** Atomic as the port requires: the count and the insert happen in one synchronous step. */
  async addWithinQueueLimit(job: Job, limit: number): Promise<boolean> {
    if (this.failAdd) throw new Error('database down');
    if (!(limit >= 1)) throw new Error(`limit must be at least 1, not ${limit}`);
    let queued = 0;
    for (const stored of this.jobs.values()) if (stored.status === 'queued') queued++;
    if (queued >= limit) return false;
    await this.add(job);
    return true;
  }
  async get(id: string): Promise<Job | null> {
    return this.jobs.get(id) ?? null;
  }
  /** Atomic as the port requires: read, change and write happen in one synchronous step. */
  async modify(id: string, change: (job: Job) => Job): Promise<Job | null> {
    const job = this.jobs.get(id);
    if (!job) return null;
    const next = storableJob(change(job));
    this.jobs.set(id, next);
    return next;
  }
  async countByStatus(): Promise<Partial<Record<JobStatus, number>>> {
    const counts: Partial<Record<JobStatus, number>> = {};
    for (const job of this.jobs.values()) counts[job.status] = (counts[job.status] ?? 0) + 1;
    return counts;
  }
  async list(filter: NewestFirstFilter): Promise<Job[]> {
    const { before } = filter;
    const order = (a: { createdAt: Date; id: string }, b: { createdAt: Date; id: string }): number =>
      b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
    return [...this.jobs.values()]
      .filter((job) => filter.statuses.includes(job.status))
      .filter((job) => before === undefined || order(job, before) > 0)
      .sort(order)
      .slice(0, filter.limit);
  }
  /** Listed calls, for tests that count the queries. */
  oldestFirstCalls = 0;
  async listOldestFirst(filter: OldestFirstFilter): Promise<Job[]> {
    this.oldestFirstCalls++;
    const { after, createdBefore } = filter;
    const order = (a: { createdAt: Date; id: string }, b: { createdAt: Date; id: string }): number =>
      a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    return [...this.jobs.values()]
      .filter((job) => filter.statuses.includes(job.status))
      .filter((job) => createdBefore === undefined || job.createdAt.getTime() < createdBefore.getTime())
      .filter((job) => after === undefined || order(job, after) > 0)
      .sort(order)
      .slice(0, filter.limit);
  }
  async listAwaitingNotice(filter: { readonly changedBefore: Date; readonly limit: number }): Promise<Job[]> {
    return [...this.jobs.values()]
      .filter((job) => job.source.kind === 'chat' && isFinished(job.status) && !this.noticesQueued.has(job.id))
      .filter((job) => job.updatedAt.getTime() < filter.changedBefore.getTime())
      .sort((a, b) => a.updatedAt.getTime() - b.updatedAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, filter.limit);
  }
  async markNoticeQueued(id: string, at: Date): Promise<void> {
    if (this.jobs.has(id) && !this.noticesQueued.has(id)) this.noticesQueued.set(id, at);
  }
  async recordMergeCommits(id: string, shas: readonly string[], _at: Date): Promise<void> {
    for (const sha of shas.map((given) => given.toLowerCase())) if (COMMIT.test(sha) && !this.mergeCommits.has(sha)) this.mergeCommits.set(sha, id);
  }
  async jobOfMergeCommit(shas: readonly string[]): Promise<string | null> {
    for (const sha of shas) {
      const id = this.mergeCommits.get(sha.toLowerCase());
      if (id !== undefined) return id;
    }
    return null;
  }
}
