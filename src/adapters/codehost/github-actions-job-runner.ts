import type { Job, JobChange } from '../../domain/jobs/job.js';
import type { Clock } from '../../ports/clock.js';
import { RateLimitReached } from '../../domain/jobs/rate-limit-reached.js';
import type { JobReport, JobRunner } from '../../ports/job-runner.js';
import { GithubError, type GithubClient } from './github-client.js';

interface WorkflowRun {
  readonly id: number;
  readonly status: string;
  readonly conclusion: string | null;
  readonly html_url: string;
  readonly head_commit?: { readonly message?: string | null } | null;
}

/** How many of the branch's newest runs `poll` looks through for one that is not skipped. */
const RUNS_LOOKED_AT = 10;

/** What the template's publish job writes in the message of the agent's commit; a run on it skips (docs/templates/agent-job.yml). */
const AGENT_DONE = '[agent-done]';

/**
 * A run that is no news of the job: one on the agent's own commit (`[agent-done]` in its message:
 * the template skips all its jobs there), started by the publish job's push when its token starts
 * workflows — from its first event on, before it ends; and any run whose jobs all skipped
 * (conclusion `skipped`). Taken for the job's run, it would mark the job failed, or be the run a
 * cancel stops while the real one goes on.
 */
export const isSkippedRun = (run: { readonly conclusion: string | null; readonly headCommitMessage?: string | null }): boolean =>
  run.conclusion === 'skipped' || (run.headCommitMessage ?? '').includes(AGENT_DONE);

/** A finished workflow run's conclusion as a job status. */
export const statusOfConclusion = (conclusion: string | null): JobChange['status'] =>
  conclusion === 'success' ? 'succeeded' : conclusion === 'cancelled' ? 'cancelled' : 'failed';

/**
 * Runs jobs on GitHub Actions: makes a commit on the default branch's head adding
 * `logs/<id>/job.md`, then creates `job/<id>` at it (one push); the repository's workflow
 * (docs/templates/agent-job.yml) runs on pushes to `job/**`: the agent in a job that can only
 * read, then another that applies its work to the branch and opens the pull request. Progress arrives as
 * code-host events; `poll` reads the branch's workflow runs as a fallback.
 */
/**
 * `logs/<id>/job.md`: the provider on line 3 and the model on line 4, where the workflow
 * (docs/templates/agent-job.yml) reads them and nowhere else; the prompt from line 6, as
 * written (it may hold lines that look like those: they are not read).
 */
export const jobFile = (job: Job): string =>
  [`# Job ${job.id}`, '', `- llm_provider: ${job.llmProvider ?? 'default'}`, `- llm_model: ${job.llmModel ?? 'default'}`, '', job.job, ''].join('\n');

/**
 * Bytes kept for job.md's lines before the prompt: the id, the provider and a model of 200
 * characters (3 bytes of UTF-8 each at most) take under 700.
 */
const JOB_FILE_HEADER_ROOM = 1024;

/**
 * The longest prompt, in bytes of UTF-8, the workflow template's agent can be given: its "Run the
 * agent" step exports job.md whole as JOB_PROMPT, and Linux refuses to start a program with one
 * environment string over 128 KiB (MAX_ARG_STRLEN, `JOB_PROMPT=<job.md>` and its NUL): the step
 * would fail with "Argument list too long" before the agent ran. CreateJob refuses a longer one.
 */
export const GITHUB_ACTIONS_MAX_PROMPT_BYTES = 128 * 1024 - 'JOB_PROMPT='.length - 1 - JOB_FILE_HEADER_ROOM;

/** How long a job handed over waits for a run of the agent's workflow before it is failed (CODEHOST_RUN_START_SECONDS). */
export const DEFAULT_RUN_START_MS = 30 * 60_000;

/** `ms` in words: whole hours, whole minutes or seconds. */
const duration = (ms: number): string => {
  const [amount, unit] = ms % 3_600_000 === 0 ? [ms / 3_600_000, 'hour'] : ms % 60_000 === 0 ? [ms / 60_000, 'minute'] : [Math.round(ms / 1000), 'second'];
  return `${amount} ${unit}${amount === 1 ? '' : 's'}`;
};

/**
 * The error of a job whose workflow run never appeared, naming what to check. `answer`: GitHub's
 * refusal of the question for the workflow's runs (404 when no such workflow file is on the
 * default branch, 403 or 401 for a token that may not read them), when it refused.
 */
export const noRunError = (workflow: string, repo: string, branch: string, waitedMs: number, answer?: string): string =>
  `No run of the workflow ${workflow} appeared on ${branch} within ${duration(waitedMs)} of the hand-off (CODEHOST_RUN_START_SECONDS)` +
  `${answer === undefined ? '' : ` and ${answer}`}: check that .github/workflows/${workflow} exists on the default branch of ${repo} and runs on ` +
  `pushes to job/** (CODEHOST_WORKFLOW names the file), that GitHub Actions are enabled for ${repo}, and that CODEHOST_TOKEN may read ` +
  'Actions and write contents';

/** How long the poll pauses for a rate limit whose answer named no time (no retry-after, no x-ratelimit-reset). */
export const RATE_LIMIT_PAUSE_MS = 60_000;

/** The longest pause for a rate limit: GitHub's primary limit resets within the hour. */
export const MAX_RATE_LIMIT_PAUSE_MS = 3_600_000;

/**
 * GitHub's answer that the token's rate limit is reached (429, or a 403 with
 * x-ratelimit-remaining 0, retry-after or "rate limit": GithubClient gives such an answer a
 * wait, retryAfterMs), as the pause until it lifts; undefined for any other error.
 */
const rateLimitOf = (error: unknown, now: Date): RateLimitReached | undefined => {
  if (!(error instanceof GithubError) || error.retryAfterMs === undefined || (error.status !== 403 && error.status !== 429)) return undefined;
  const pause = Math.min(error.retryAfterMs > 0 ? error.retryAfterMs : RATE_LIMIT_PAUSE_MS, MAX_RATE_LIMIT_PAUSE_MS);
  return new RateLimitReached(new Date(now.getTime() + pause), error.message, { cause: error });
};

/** A refusal of GitHub's that waiting does not change (not a rate limit, not a 5xx): the workflow or the permission is missing. */
const isRefusal = (error: unknown): error is GithubError =>
  error instanceof GithubError && error.retryAfterMs === undefined && (error.status === 401 || error.status === 403 || error.status === 404);

export interface GithubActionsJobRunnerOptions {
  /** Tells how long a job has waited for its run (tests set the time). */
  readonly clock?: Clock;
  /**
   * How long a job handed over may go without a run of the workflow (none found, none reported by
   * an event) before `poll` fails it: DEFAULT_RUN_START_MS unless set.
   */
  readonly runStartMs?: number;
}

/** Lets a 422 saying the thing exists pass (it was made by an earlier try); rethrows anything else. */
const madeBefore =
  (says: RegExp) =>
  (error: unknown): void => {
    if (!(error instanceof GithubError && error.status === 422 && says.test(error.detail))) throw error;
  };

export class GithubActionsJobRunner implements JobRunner {
  readonly kind = 'github-actions';

  readonly #clock: Clock;
  readonly #runStartMs: number;

  /** `workflow`: the agent's workflow file (CODEHOST_WORKFLOW), whose runs tell a job's outcome. */
  constructor(
    private readonly github: GithubClient,
    private readonly workflow = 'agent-job.yml',
    options: GithubActionsJobRunnerOptions = {},
  ) {
    this.#clock = options.clock ?? { now: () => new Date() };
    this.#runStartMs = options.runStartMs ?? DEFAULT_RUN_START_MS;
  }

  /**
   * Hands the job over. `signal` (the job-run task's: the queue took the task back, or the job was
   * cancelled or the service stops) ends the hand-over where it is: the call under way is given up
   * and no other is made; it then rejects. A hand-over stopped midway is done again by the next one
   * (the branch made, if any, is taken as its own).
   */
  async run(job: Job, report: JobReport, signal?: AbortSignal): Promise<void> {
    const options = { signal };
    const { default_branch: base } = await this.github.request<{ default_branch: string }>('GET', '', undefined, options);
    const ref = await this.github.request<{ object: { sha: string } }>('GET', `/git/ref/heads/${encodeURIComponent(base)}`, undefined, options);
    const parent = ref.object.sha;
    // The branch appears with job.md in one push: the commit is made first (Git Data API), then
    // the ref pointing at it. Creating the ref at the base and adding the file in a second commit
    // made two pushes, and the workflow run of the first (no job.md) failed, which could mark the
    // job failed before the real run.
    const { tree: baseTree } = await this.github.request<{ tree: { sha: string } }>('GET', `/git/commits/${encodeURIComponent(parent)}`, undefined, options);
    const tree = await this.github.request<{ sha: string }>(
      'POST',
      '/git/trees',
      {
        base_tree: baseTree.sha,
        tree: [{ path: `logs/${job.id}/job.md`, mode: '100644', type: 'blob', content: jobFile(job) }],
      },
      options,
    );
    const commit = await this.github.request<{ sha: string }>(
      'POST',
      '/git/commits',
      { message: `job ${job.id}: start`, tree: tree.sha, parents: [parent] },
      options,
    );
    // A ref already there was made by an earlier hand-over of the same job (a call answered after
    // its caller gave up, a task run again), the same way: pointing at a commit with job.md.
    await this.github
      .request('POST', '/git/refs', { ref: `refs/heads/${job.branch}`, sha: commit.sha }, options)
      .catch(madeBefore(/reference already exists/i));
    await report({ summary: `Handed to GitHub Actions on ${job.branch}` });
  }

  /**
   * The branch's latest run of the agent's workflow started by a push, as that workflow is: the
   * repository's other workflows (its CI) run on the branch too, and a fork's pull request from a
   * branch of the same name starts runs here by `pull_request`; neither is the job's.
   * A job that has had no run at all (none found, no run or pull request of it reported by an event)
   * for `runStartMs` since its last change (its hand-over) is failed, naming what to check: the
   * workflow never started (no such file, or it does not run on pushes to job/**; Actions disabled;
   * a token that cannot create the branch or read the runs). A refusal of the question for the
   * runs (404: no such workflow; 403, 401) is thrown as before until then, and named in that error.
   * The question is asked once, never tried again (the next poll asks again): a poll makes one
   * call per job. GitHub's rate limit reached is thrown as RateLimitReached, until GitHub's reset
   * (or retry-after): the poll stops there.
   */
  async poll(job: Job): Promise<JobChange | null> {
    let latest: WorkflowRun | undefined;
    try {
      latest = await this.#latestRun(job, { attempts: 1 });
    } catch (error) {
      if (isRefusal(error) && this.#noRunFor(job)) return this.#noRun(job, `GitHub refused to list its runs (${error.message})`);
      throw rateLimitOf(error, this.#clock.now()) ?? error;
    }
    if (!latest) return this.#noRunFor(job) ? this.#noRun(job) : null;
    if (latest.status !== 'completed') return { runUrl: latest.html_url };
    return { runUrl: latest.html_url, status: statusOfConclusion(latest.conclusion) };
  }

  /** Whether the job has waited for its first run for `runStartMs` or more. */
  #noRunFor(job: Job): boolean {
    return job.runUrl === null && job.prUrl === null && this.#clock.now().getTime() - job.updatedAt.getTime() >= this.#runStartMs;
  }

  #noRun(job: Job, answer?: string): JobChange {
    return { status: 'failed', error: noRunError(this.workflow, this.github.repo, job.branch, this.#runStartMs, answer) };
  }

  /**
   * Cancels the job's workflow run while it has not completed (POST …/cancel): without it the
   * workflow of a cancelled job went on, pushed its work and opened its pull request. A run
   * not started yet is not found: the next poll of the job (cancelled, so not polled) has
   * nothing to do either, and a workflow that starts late still opens a pull request, which
   * auto-merge never merges (the job is not succeeded).
   */
  async stopElsewhere(job: Job): Promise<void> {
    const latest = await this.#latestRun(job);
    if (latest === undefined || latest.status === 'completed') return;
    await this.github.request('POST', `/actions/runs/${latest.id}/cancel`).catch((error: unknown) => {
      // 409: it completed meanwhile.
      if (!(error instanceof GithubError && error.status === 409)) throw error;
    });
  }

  /**
   * The newest run that is not a skipped one: a push to the branch after the agent's (the publish
   * job's, with a token that starts workflows: docs/jobs.md) starts the workflow again, whose jobs
   * all skip (`[agent-done]`), and that run says nothing of the job.
   */
  async #latestRun(job: Job, options: { readonly attempts?: number } = {}): Promise<WorkflowRun | undefined> {
    const { workflow_runs: runs } = await this.github.request<{ workflow_runs: WorkflowRun[] }>(
      'GET',
      `/actions/workflows/${encodeURIComponent(this.workflow)}/runs?branch=${encodeURIComponent(job.branch)}&event=push&per_page=${RUNS_LOOKED_AT}`,
      undefined,
      options,
    );
    return runs.find((run) => !isSkippedRun({ conclusion: run.conclusion, headCommitMessage: run.head_commit?.message }));
  }
}
