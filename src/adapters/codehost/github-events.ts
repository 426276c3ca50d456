import type { CodehostEvents, JobUpdate } from '../../ports/codehost-events.js';
import { isSkippedRun, statusOfConclusion } from './github-actions-job-runner.js';
import { githubBodyIsUnique, githubEventMismatch } from './github-event-shapes.js';

const JOB_BRANCH = /^job\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

type Fields = Record<string, unknown>;
const field = (value: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((current, key) => (typeof current === 'object' && current !== null ? (current as Fields)[key] : undefined), value);
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const jobOf = (branch: unknown): string | undefined => JOB_BRANCH.exec(text(branch) ?? '')?.[1]?.toLowerCase();

/**
 * Whether an event's branch is one of the jobs' repository: the event's repository is the
 * configured one (CODEHOST_REPO, when set) and the branch's own repository (`head`) is that
 * same one. A fork, or another repository whose webhook shares the secret (an organisation's),
 * can push a branch named `job/<id>` too; its events must not move that job.
 */
const inJobsRepository = (payload: unknown, expected: string | undefined, headRepository?: { of: unknown }): boolean => {
  const repository = text(field(payload, 'repository', 'full_name'))?.toLowerCase();
  if (repository === undefined || (expected !== undefined && repository !== expected.toLowerCase())) return false;
  return headRepository === undefined || text(headRepository.of)?.toLowerCase() === repository;
};

/**
 * Where each event the jobs' own work causes names its branch (and, for a pull request or a run,
 * the branch's own repository): the push creating `job/<id>` and any later one, the branch's
 * creation and deletion, its pull request (opened, synchronized, closed...), the runs, jobs,
 * check suites and check runs on it, a deployment of it. Events people cause on a job's pull
 * request (a review, a review comment, a comment) are not listed: they may well fire an agent.
 */
const OWN_BRANCH_OF: Readonly<Record<string, (payload: unknown) => { branch: unknown; head?: { of: unknown } } | undefined>> = {
  push: (payload) => {
    const ref = text(field(payload, 'ref'));
    return ref?.startsWith('refs/heads/') ? { branch: ref.slice('refs/heads/'.length) } : undefined;
  },
  create: (payload) => (field(payload, 'ref_type') === 'branch' ? { branch: field(payload, 'ref') } : undefined),
  delete: (payload) => (field(payload, 'ref_type') === 'branch' ? { branch: field(payload, 'ref') } : undefined),
  pull_request: (payload) => ({
    branch: field(payload, 'pull_request', 'head', 'ref'),
    head: { of: field(payload, 'pull_request', 'head', 'repo', 'full_name') },
  }),
  workflow_run: (payload) => ({
    branch: field(payload, 'workflow_run', 'head_branch'),
    head: { of: field(payload, 'workflow_run', 'head_repository', 'full_name') },
  }),
  workflow_job: (payload) => ({ branch: field(payload, 'workflow_job', 'head_branch') }),
  check_suite: (payload) => ({ branch: field(payload, 'check_suite', 'head_branch') }),
  check_run: (payload) => ({ branch: field(payload, 'check_run', 'check_suite', 'head_branch') }),
  deployment: (payload) => ({ branch: field(payload, 'deployment', 'ref') }),
  deployment_status: (payload) => ({ branch: field(payload, 'deployment', 'ref') }),
  status: (payload) => {
    // A commit status names the branches whose head the commit is: the job's, when it is its only one.
    const branches = field(payload, 'branches');
    const names = Array.isArray(branches) ? branches.map((branch) => text(field(branch, 'name'))) : [];
    return names.length > 0 && names.every((name) => jobOf(name) !== undefined) ? { branch: names[0] } : undefined;
  },
};

/**
 * The `job/<id>` branch of the jobs' repository (`repo`; unset, the event's repository's own
 * branch, never a fork's) an event the jobs' own work causes is about (OWN_BRANCH_OF), or undefined.
 */
export const ownJobBranchOf = (event: string | undefined, payload: unknown, repo: string | undefined): string | undefined => {
  // Without the event's name (a stored request that lost its header), each event the payload can be of.
  if (event === undefined)
    return Object.keys(OWN_BRANCH_OF)
      .filter((candidate) => githubEventMismatch(candidate, payload) === undefined)
      .map((candidate) => ownJobBranchOf(candidate, payload, repo))
      .find((branch) => branch !== undefined);
  const found = Object.hasOwn(OWN_BRANCH_OF, event) ? OWN_BRANCH_OF[event]?.(payload) : undefined;
  if (found === undefined || jobOf(found.branch) === undefined || !inJobsRepository(payload, repo, found.head)) return undefined;
  return text(found.branch);
};

/** A commit id: 40 (SHA-1) or 64 (SHA-256) hex digits. */
const COMMIT = /^[0-9a-f]{40}$|^[0-9a-f]{64}$/i;
/** The all-zero `after` of a push deleting a branch. */
const NO_COMMIT = /^0+$/;

/** The longest list of a push's commits looked at (GitHub lists at most 2048). */
const MAX_PUSH_COMMITS = 2048;

/**
 * The commits each event that an auto-merge of a job causes names: the push of the merge (its
 * head `after`, and each commit it brings into the branch: the merge commit and the job's
 * commits, among them the job's head, the merge commit's second parent), and the workflow runs,
 * workflow jobs, check suites, check runs, statuses and deployments on the merge commit (their
 * head commit; a status also names the commit's parents).
 */
const COMMITS_OF: Readonly<Record<string, (payload: unknown) => unknown[]>> = {
  push: (payload) => {
    // Its head first; none for a push deleting a branch (its `after` is all zeros).
    const after = text(field(payload, 'after'));
    if (after === undefined || !COMMIT.test(after) || NO_COMMIT.test(after)) return [];
    const commits = field(payload, 'commits');
    return [after, ...(Array.isArray(commits) ? commits.slice(0, MAX_PUSH_COMMITS).map((commit) => field(commit, 'id')) : [])];
  },
  workflow_run: (payload) => [field(payload, 'workflow_run', 'head_sha')],
  workflow_job: (payload) => [field(payload, 'workflow_job', 'head_sha')],
  check_suite: (payload) => [field(payload, 'check_suite', 'head_sha')],
  check_run: (payload) => [field(payload, 'check_run', 'head_sha'), field(payload, 'check_run', 'check_suite', 'head_sha')],
  status: (payload) => {
    const parents = field(payload, 'commit', 'parents');
    return [field(payload, 'sha'), ...(Array.isArray(parents) ? parents.map((parent) => field(parent, 'sha')) : [])];
  },
  deployment: (payload) => [field(payload, 'deployment', 'sha')],
  deployment_status: (payload) => [field(payload, 'deployment', 'sha')],
};

/**
 * The commits an event of the jobs' repository (`repo`; unset, any) names (COMMITS_OF), each
 * once, lower case, a push's head first; none for another event, or another repository's.
 */
export const commitsOf = (event: string | undefined, payload: unknown, repo: string | undefined): string[] => {
  // Without the event's name (a stored request that lost its header), each event the payload can be of.
  if (event === undefined)
    return [
      ...new Set(
        Object.keys(COMMITS_OF)
          .filter((candidate) => githubEventMismatch(candidate, payload) === undefined)
          .flatMap((candidate) => commitsOf(candidate, payload, repo)),
      ),
    ];
  if (!Object.hasOwn(COMMITS_OF, event) || !inJobsRepository(payload, repo)) return [];
  const named = (COMMITS_OF[event]?.(payload) ?? []).map(text).filter((sha): sha is string => sha !== undefined && COMMIT.test(sha) && !NO_COMMIT.test(sha));
  return [...new Set(named.map((sha) => sha.toLowerCase()))];
};

/** Which runs tell a job's outcome: those of the agent's workflow in the jobs' repository. */
export interface JobsRepository {
  /** owner/name (CODEHOST_REPO). */
  readonly repo: string;
  /** The agent's workflow file (CODEHOST_WORKFLOW), e.g. `agent-job.yml`. */
  readonly workflow: string;
}

/**
 * GitHub's `workflow_run` and `pull_request` events for `job/<id>` branches of the jobs'
 * repository (CODEHOST_REPO; unset, any repository's own branches, never a fork's). A run
 * tells the job's outcome only when it is the agent's workflow's: the push creating the branch
 * also starts the repository's other workflows (its CI), whose outcome is not the job's. A
 * check suite cannot say which workflow it is of: it moves no job, and only tells auto-merge to
 * look again.
 */
export class GithubEvents implements CodehostEvents {
  private readonly repo: string | undefined;
  private readonly workflow: string | undefined;

  constructor(jobs?: JobsRepository) {
    this.repo = jobs?.repo;
    this.workflow = jobs?.workflow;
  }

  jobUpdate(event: string, payload: unknown): JobUpdate | null {
    const action = text(field(payload, 'action'));
    if (event === 'workflow_run') {
      const jobId = jobOf(field(payload, 'workflow_run', 'head_branch'));
      if (!jobId || !inJobsRepository(payload, this.repo, { of: field(payload, 'workflow_run', 'head_repository', 'full_name') })) return null;
      if (!this.#isAgentWorkflow(text(field(payload, 'workflow_run', 'path')))) return null;
      const runUrl = text(field(payload, 'workflow_run', 'html_url')) ?? null;
      const conclusion = action === 'completed' ? (text(field(payload, 'workflow_run', 'conclusion')) ?? null) : null;
      // A run on the agent's own commit, or whose jobs all skipped (a push after the agent's work),
      // is no news from its first event: taken as the job's, its end would mark the job failed (and
      // a finished job keeps its outcome), and its page would replace the real run's.
      if (isSkippedRun({ conclusion, headCommitMessage: text(field(payload, 'workflow_run', 'head_commit', 'message')) })) return null;
      if (action === 'completed') return { jobId, change: { runUrl, status: statusOfConclusion(conclusion) } };
      return { jobId, change: { runUrl, status: 'running' } };
    }
    if (event === 'check_suite') {
      // A suite cannot say which workflow it is of: it changes nothing of the job, but a completed
      // one is news for auto-merge (a check it waited for may have finished).
      const jobId = jobOf(field(payload, 'check_suite', 'head_branch'));
      if (!jobId || action !== 'completed' || !inJobsRepository(payload, this.repo)) return null;
      return { jobId, change: {} };
    }
    if (event === 'pull_request') {
      const jobId = jobOf(field(payload, 'pull_request', 'head', 'ref'));
      const prUrl = text(field(payload, 'pull_request', 'html_url'));
      if (!jobId || !prUrl || !inJobsRepository(payload, this.repo, { of: field(payload, 'pull_request', 'head', 'repo', 'full_name') })) return null;
      return { jobId, change: { prUrl } };
    }
    return null;
  }

  mismatch(event: string, payload: unknown): string | undefined {
    return githubEventMismatch(event, payload);
  }

  bodyIsUnique(event: string, payload: unknown): boolean {
    return githubBodyIsUnique(event, payload);
  }

  ownJobBranch(event: string | undefined, payload: unknown): string | undefined {
    return ownJobBranchOf(event, payload, this.repo);
  }

  commits(event: string | undefined, payload: unknown): string[] {
    return commitsOf(event, payload, this.repo);
  }

  /** The run's workflow file (`.github/workflows/agent-job.yml`) is the agent's; any, when none is configured. */
  #isAgentWorkflow(path: string | undefined): boolean {
    if (this.workflow === undefined) return true;
    return path !== undefined && path.split('@')[0] === `.github/workflows/${this.workflow}`;
  }
}

/**
 * The code-host events of a gateway whose jobs run locally (no CODEHOST_TOKEN/CODEHOST_REPO):
 * they move no job. A repository's CI on a branch named `job/<id>` (the agent may push its
 * branch there) says nothing of how the local agent ended.
 */
export class NoJobEvents implements CodehostEvents {
  jobUpdate(): null {
    return null;
  }

  /** The deliveries still fire triggers: their events are checked as GitHub's are. */
  mismatch(event: string, payload: unknown): string | undefined {
    return githubEventMismatch(event, payload);
  }

  bodyIsUnique(event: string, payload: unknown): boolean {
    return githubBodyIsUnique(event, payload);
  }

  /** Local jobs push their `job/<id>` branches to the repository too (the agent may): any repository's own. */
  ownJobBranch(event: string | undefined, payload: unknown): string | undefined {
    return ownJobBranchOf(event, payload, undefined);
  }

  commits(event: string | undefined, payload: unknown): string[] {
    return commitsOf(event, payload, undefined);
  }
}
