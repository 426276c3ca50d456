import type { Job, JobStatus } from '../../domain/jobs/job.js';
import type { JobCursor, JobRepository } from '../../ports/job-repository.js';

/** How many jobs one query of a scan reads. */
export const SCAN_PAGE = 100;

/** The order of a scan: creation time, then id (JobRepository.listOldestFirst). */
const compare = (a: JobCursor, b: JobCursor): number => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Goes through every job in some statuses, however many, a bounded number per pass: oldest first,
 * a page (SCAN_PAGE) per query, keyset by (created_at, id), at most `perPass` jobs a pass. A pass
 * goes on after the last job the pass before handled, and once it reached the newest goes round
 * to the oldest, up to where it began: with more than `perPass` jobs each is reached within a few
 * passes, never left out; with fewer, every pass reaches each once. A job the consumer did not
 * take (it stopped the pass: `break`) is where the next pass begins.
 */
export class JobScan {
  /** The last job handled; undefined: the next pass begins at the oldest. */
  #after: JobCursor | undefined;

  constructor(
    private readonly jobs: JobRepository,
    private readonly statuses: readonly JobStatus[],
    private readonly perPass: number,
  ) {}

  /** The jobs of one pass; `createdBefore`: only those created before then. */
  async *pass(createdBefore?: Date): AsyncGenerator<Job> {
    const began = this.#after;
    // A pass that began at the oldest does not go round.
    let wentRound = began === undefined;
    let left = this.perPass;
    while (left > 0) {
      const limit = Math.min(SCAN_PAGE, left);
      const page = await this.jobs.listOldestFirst({ statuses: this.statuses, after: this.#after, createdBefore, limit });
      for (const job of page) {
        // Round to where this pass began: the rest came in this pass already.
        if (wentRound && began !== undefined && compare(job, began) > 0) return;
        yield job;
        this.#after = { createdAt: job.createdAt, id: job.id };
        left--;
      }
      if (page.length < limit) {
        // The newest reached: the next page (of this pass or the next) is the oldest.
        this.#after = undefined;
        if (wentRound) return;
        wentRound = true;
      }
    }
  }
}
