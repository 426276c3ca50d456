import type { Job, JobStatus } from '../../src/domain/jobs/Job.js';
import type { JobRepository } from '../../src/ports/JobRepository.js';

export class InMemoryJobRepository implements JobRepository {
  readonly jobs = new Map<string, Job>();
  failAdd = false;

  async add(job: Job): Promise<void> {
    if (this.failAdd) throw new Error('database down');
    this.jobs.set(job.id, job);
  }
  async get(id: string): Promise<Job | null> {
    return this.jobs.get(id) ?? null;
  }
  async modify(id: string, change: (job: Job) => Job): Promise<Job | null> {
    const job = this.jobs.get(id);
    if (!job) return null;
    const next = change(job);
    this.jobs.set(id, next);
    return next;
  }
  async countByStatus(): Promise<Partial<Record<JobStatus, number>>> {
    const counts: Partial<Record<JobStatus, number>> = {};
    for (const job of this.jobs.values()) counts[job.status] = (counts[job.status] ?? 0) + 1;
    return counts;
  }
  async list(filter: { statuses: readonly JobStatus[]; limit: number }): Promise<Job[]> {
    return [...this.jobs.values()]
      .filter((job) => filter.statuses.includes(job.status))
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
      .slice(0, filter.limit);
  }
}
