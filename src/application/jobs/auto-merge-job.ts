import { pathsOutside, withAutoMergeNote, type PathGlobs } from '../../domain/jobs/allowed-paths.js';
import { applyChange, type Job } from '../../domain/jobs/job.js';
import type { Clock } from '../../ports/clock.js';
import type { JobRepository } from '../../ports/job-repository.js';
import type { Logger } from '../../ports/logger.js';
import type { PullRequests } from '../../ports/pull-requests.js';
import type { TaskQueue } from '../../ports/task-queue.js';

export const AUTO_MERGE_QUEUE = 'job-auto-merge';

export interface AutoMergeTask {
  readonly jobId: string;
}

export interface AutoMergeSettings {
  /** ALLOWED_PATHS as written, for the summary. */
  readonly allowedPaths: readonly string[];
  readonly globs: PathGlobs;
}

/** How many paths outside ALLOWED_PATHS a summary names before it says "and N more". */
const NAMED_PATHS = 10;

/**
 * AUTO_MERGE (docs/jobs.md): merges the pull request of a succeeded job when it is into the
 * default branch, every file its head commit changes is under ALLOWED_PATHS and that commit has
 * at least one check and every one passed, merging that very commit; otherwise leaves it open
 * and says why on the job's summary (one `Auto-merge:` line, replaced by each attempt). Run
 * after each code-host event about a succeeded job, so an attempt that found the pull request
 * missing or its checks pending is made again when the next event arrives.
 */
export class AutoMergeJob {
  constructor(
    private readonly jobs: JobRepository,
    private readonly pullRequests: PullRequests,
    private readonly settings: AutoMergeSettings,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async execute(task: AutoMergeTask): Promise<void> {
    const job = await this.jobs.get(task.jobId);
    if (job?.status !== 'succeeded') return;
    const log = this.logger.child({ jobId: job.id });
    const pr = await this.pullRequests.forBranch(job.branch);
    if (!pr) return this.#note(job, `waiting for a pull request from ${job.branch}`);
    if (pr.merged) return;
    const prUrl = pr.url;
    if (!pr.open) return this.#note(job, `pull request #${pr.number} was closed without merging; not merged`, prUrl);
    if (pr.base !== pr.defaultBranch) {
      // The job branched off the default branch: a pull request into any other is not the job's hand-back.
      log.info({ pr: pr.number }, 'auto-merge refused: the pull request is not into the default branch');
      return this.#note(job, `not merged: pull request #${pr.number} is into ${pr.base}, not the default branch ${pr.defaultBranch}`, prUrl);
    }

    // The files of the head read above, the commit merged below (merge is refused if the head
    // moved): not the pull's current files, which a force-push between the calls could change.
    const files = await this.pullRequests.changedFiles(pr.base, pr.headSha);
    if (!files.complete) {
      // What the host does not list cannot be checked against ALLOWED_PATHS.
      log.info({ pr: pr.number, listed: files.listed }, 'auto-merge refused: more files than the code host lists');
      return this.#note(
        job,
        `not merged: pull request #${pr.number} changes ${files.listed} files or more, more than the code host lists, so they cannot all be checked against ALLOWED_PATHS`,
        prUrl,
      );
    }
    const outside = pathsOutside(files.paths, this.settings.globs);
    if (outside.length > 0) {
      const named = outside.slice(0, NAMED_PATHS).join(', ') + (outside.length > NAMED_PATHS ? ` and ${outside.length - NAMED_PATHS} more` : '');
      log.info({ pr: pr.number, outside: outside.length }, 'auto-merge refused: files outside ALLOWED_PATHS');
      return this.#note(
        job,
        `not merged: pull request #${pr.number} changes ${outside.length === 1 ? 'a file' : `${outside.length} files`} outside ALLOWED_PATHS (${this.settings.allowedPaths.join(', ')}): ${named}`,
        prUrl,
      );
    }

    const checks = await this.pullRequests.checks(pr.headSha);
    if (checks.state === 'failed') {
      log.info({ pr: pr.number, failed: checks.failed }, 'auto-merge refused: a check failed');
      return this.#note(job, `not merged: pull request #${pr.number} has failed checks: ${checks.failed.join(', ')}`, prUrl);
    }
    if (checks.state === 'pending') {
      // Tried again at the next code-host event about the job (a completed check suite), not on a timer.
      const waitingFor = checks.pending.length > 0 ? checks.pending.join(', ') : 'none has started (no check run or status on its head)';
      return this.#note(job, `waiting for checks of pull request #${pr.number}: ${waitingFor}`, prUrl);
    }

    // Recorded before the merge is asked for: the push of the merge to the base branch (which
    // brings this head in) may come back, and fire triggers, before the answer below is recorded.
    // Its events are the job's own and run no agent action (docs/triggers.md).
    await this.jobs.recordMergeCommits(job.id, [pr.headSha], this.clock.now());
    const merged = await this.pullRequests.merge(pr.number, pr.headSha);
    if (merged.merged) {
      // The merge commit: the runs and checks on it are the job's own too.
      if (merged.sha !== undefined) await this.jobs.recordMergeCommits(job.id, [merged.sha], this.clock.now());
      log.info({ pr: pr.number, mergeCommit: merged.sha }, 'job pull request merged automatically');
      return this.#note(job, `merged pull request #${pr.number}`, prUrl);
    }
    // Another attempt (another replica) may have merged it meanwhile.
    if ((await this.pullRequests.forBranch(job.branch))?.merged) return;
    log.warn({ pr: pr.number, reason: merged.reason }, 'auto-merge refused by the code host');
    return this.#note(job, `not merged: the code host refused to merge pull request #${pr.number}: ${merged.reason}`, prUrl);
  }

  async #note(job: Job, note: string, prUrl?: string): Promise<void> {
    await this.jobs.modify(job.id, (stored) =>
      applyChange(stored, { summary: withAutoMergeNote(stored.summary, note), ...(prUrl && !stored.prUrl ? { prUrl } : {}) }, this.clock.now()),
    );
  }
}

/**
 * The idempotency key of the auto-merge attempt a cause (a code-host delivery, `codehost:<id>`)
 * asked for a job: the cause coming again (GitHub's redelivery, or a captured delivery sent again
 * under its id) queues no further attempt while the queue keeps the first
 * (RETENTION_FINISHED_TASKS_DAYS after it ran).
 */
export const autoMergeKey = (jobId: string, cause: string): string => `automerge:${jobId}:${cause}`;

/** Queues an auto-merge attempt for a job that succeeded (after each code-host event or poll that updated it). */
export class RequestAutoMerge {
  constructor(private readonly queue: TaskQueue) {}

  /** `cause`: what asked for the attempt, when it can come again (a delivery's key): one attempt per cause and job. */
  async execute(job: Job, cause?: string): Promise<void> {
    if (job.status !== 'succeeded') return;
    await this.queue.enqueue(AUTO_MERGE_QUEUE, { jobId: job.id } satisfies AutoMergeTask, cause === undefined ? {} : { key: autoMergeKey(job.id, cause) });
  }
}
