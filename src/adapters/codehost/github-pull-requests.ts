import type { ChangedFiles, ChecksOutcome, MergeOutcome, PullRequest, PullRequests } from '../../ports/pull-requests.js';
import { type GithubClient, GithubError } from './github-client.js';

interface ListedPull {
  readonly number: number;
  readonly html_url: string;
  readonly state: string;
  readonly merged_at: string | null;
  /** `repo` is null when the head's repository (a fork) was deleted. */
  readonly head: { readonly sha: string; readonly repo: { readonly full_name: string } | null };
  readonly base: { readonly ref: string };
}

interface Comparison {
  /** Absent or cut off when the comparison is too large to list. */
  readonly files?: ReadonlyArray<{ readonly filename: string; readonly previous_filename?: string }>;
}

interface CheckRun {
  readonly name: string;
  readonly status: string;
  readonly conclusion: string | null;
}

interface CombinedStatus {
  readonly state: string;
  readonly total_count: number;
  readonly statuses: ReadonlyArray<{ readonly context: string; readonly state: string }>;
}

const PER_PAGE = 100;
/** Pages of check runs or statuses read at most. */
const MAX_PAGES = 30;
/** GitHub's compare lists at most 300 changed files, without saying how many there are. */
const COMPARE_FILES = 300;
/** Conclusions of a finished check run that do not stand in the way of a merge. */
const PASSING = ['success', 'neutral', 'skipped'];

/**
 * Pull requests of job branches through GitHub's REST API (version 2022-11-28): list pulls by
 * head, list the files a commit changes (compare `base...sha`), read a commit's check runs
 * (paginated) and combined status, merge a pull at a given head.
 */
export class GithubPullRequests implements PullRequests {
  /** `owner` of CODEHOST_REPO: GitHub names a head branch `owner:branch`. */
  private readonly owner: string;

  constructor(
    private readonly github: GithubClient,
    private readonly repo: string,
  ) {
    this.owner = repo.split('/')[0];
  }

  /**
   * The newest pull request whose head is `branch` of the repository itself: GitHub's `head`
   * filter names the owner only, and a fork of the same owner (one within the organisation) can
   * have a branch of the same name; its pull request is never the job's (auto-merge would merge it).
   */
  async forBranch(branch: string): Promise<PullRequest | null> {
    const head = encodeURIComponent(`${this.owner}:${branch}`);
    const pulls = await this.github.request<ListedPull[]>('GET', `/pulls?head=${head}&state=all&sort=created&direction=desc&per_page=${PER_PAGE}`);
    const ours = this.repo.toLowerCase();
    const pull = pulls.find((candidate) => candidate.head.repo?.full_name.toLowerCase() === ours);
    if (!pull) return null;
    // Asked each time: the repository's default branch can be renamed or changed.
    const { default_branch: defaultBranch } = await this.github.request<{ default_branch: string }>('GET', '');
    return {
      number: pull.number,
      url: pull.html_url,
      headSha: pull.head.sha,
      open: pull.state === 'open',
      merged: pull.merged_at !== null,
      base: pull.base.ref,
      defaultBranch,
    };
  }

  async changedFiles(base: string, sha: string): Promise<ChangedFiles> {
    // The files of exactly this commit (a pull's files endpoint lists those of whatever its head
    // is when asked). Three dots: from the merge base, as the pull request shows them.
    const basehead = `${encodeURIComponent(base).replaceAll('%2F', '/')}...${encodeURIComponent(sha)}`;
    const { files } = await this.github.request<Comparison>('GET', `/compare/${basehead}`);
    const paths = (files ?? []).flatMap((file) => [file.filename, ...(file.previous_filename ? [file.previous_filename] : [])]);
    const listed = files?.length ?? 0;
    return { paths, listed, complete: files !== undefined && listed < COMPARE_FILES };
  }

  async checks(sha: string): Promise<ChecksOutcome> {
    const runs: CheckRun[] = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const answer = await this.github.request<{ total_count: number; check_runs: CheckRun[] }>(
        'GET',
        `/commits/${encodeURIComponent(sha)}/check-runs?per_page=${PER_PAGE}&page=${page}`,
      );
      runs.push(...answer.check_runs);
      if (answer.check_runs.length < PER_PAGE || runs.length >= answer.total_count) break;
    }
    // The combined status lists its statuses a page at a time too (30 unless asked for more).
    const statuses: Array<CombinedStatus['statuses'][number]> = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const answer = await this.github.request<CombinedStatus>('GET', `/commits/${encodeURIComponent(sha)}/status?per_page=${PER_PAGE}&page=${page}`);
      statuses.push(...answer.statuses);
      if (answer.statuses.length < PER_PAGE || statuses.length >= answer.total_count) break;
    }
    const combined = { statuses };
    const failed = [
      ...runs
        .filter((run) => run.status === 'completed' && !PASSING.includes(run.conclusion ?? ''))
        .map((run) => `${run.name} (${run.conclusion ?? 'no conclusion'})`),
      ...combined.statuses.filter((status) => status.state === 'failure' || status.state === 'error').map((status) => `${status.context} (${status.state})`),
    ];
    if (failed.length > 0) return { state: 'failed', failed };
    const pending = [
      ...runs.filter((run) => run.status !== 'completed').map((run) => run.name),
      ...combined.statuses.filter((status) => status.state === 'pending').map((status) => status.context),
    ];
    if (pending.length > 0) return { state: 'pending', pending };
    // No check run and no status is no evidence of the head: the repository's CI may not run on the branch at
    // all (a push or pull request made with a workflow's GITHUB_TOKEN starts no workflow), or not
    // have started yet (an attempt made as the pull request opens). Never passed; an attempt is
    // made again at the next event (a completed check suite).
    // Nor is a check that skipped or came out neutral: a run of the agent's own workflow started
    // by the publish job's push skips all its jobs, within seconds, before any CI has a run there.
    // At least one check must have succeeded.
    const succeeded = runs.some((run) => run.conclusion === 'success') || statuses.some((status) => status.state === 'success');
    if (!succeeded) return { state: 'pending', pending: [] };
    return { state: 'passed' };
  }

  async merge(number: number, sha: string): Promise<MergeOutcome> {
    try {
      // The default merge method, "merge": a merge commit whose second parent is the head `sha`.
      const answer = await this.github.request<{ merged?: boolean; message?: string; sha?: unknown }>('PUT', `/pulls/${number}/merge`, { sha });
      if (answer.merged === false) return { merged: false, reason: answer.message ?? 'not merged' };
      return typeof answer.sha === 'string' && answer.sha !== '' ? { merged: true, sha: answer.sha } : { merged: true };
    } catch (error) {
      // 405 not mergeable, 409 head moved, 422 invalid: refusals, not failures of the call.
      if (error instanceof GithubError && [405, 409, 422].includes(error.status)) return { merged: false, reason: error.message };
      throw error;
    }
  }
}
