import type { ChangedFiles, ChecksOutcome, MergeOutcome, PullRequest, PullRequests } from '../../src/ports/pull-requests.js';
import type { FakeFiles, FakePull } from '../support/fake-github.js';
import { mergeCommitOf } from '../support/fake-github.js';

const PASSING = ['success', 'neutral', 'skipped'];
/** The most changed files of a comparison the code host lists (GitHub's compare limit). */
export const LISTED_FILES = 300;

/** PullRequests over pull requests held in a Map (the fake GitHub's shape); passes the same contract suite as the GitHub adapter. */
export class InMemoryPullRequests implements PullRequests {
  readonly pulls = new Map<number, FakePull>();
  /** The files of commits that are no pull's head (any more), by sha: a head before a force-push. */
  readonly commitFiles = new Map<string, FakeFiles>();

  async forBranch(branch: string): Promise<PullRequest | null> {
    // The repository's own branch only, never a fork's of the same name.
    const [pull] = [...this.pulls.values()]
      .filter((candidate) => candidate.branch === branch && (candidate.headRepo ?? 'acme/app') === 'acme/app')
      .sort((a, b) => b.number - a.number);
    return pull
      ? {
          number: pull.number,
          url: `https://github.com/acme/app/pull/${pull.number}`,
          headSha: pull.sha,
          open: pull.open,
          merged: pull.merged,
          base: pull.base ?? 'main',
          defaultBranch: 'main',
        }
      : null;
  }

  /** The files of commit `sha` (a pull's head, or one of commitFiles); lists at most LISTED_FILES, as GitHub's compare does. */
  async changedFiles(_base: string, sha: string): Promise<ChangedFiles> {
    const files = [...this.pulls.values()].find((pull) => pull.sha === sha)?.files ?? this.commitFiles.get(sha);
    if (!files) throw new Error(`no commit ${sha}`);
    const listed = files.slice(0, LISTED_FILES);
    const paths = listed.flatMap((file) => (typeof file === 'string' ? [file] : [file.filename, file.previous_filename]));
    return { paths, listed: listed.length, complete: listed.length < LISTED_FILES };
  }

  async checks(sha: string): Promise<ChecksOutcome> {
    const pull = [...this.pulls.values()].find((candidate) => candidate.sha === sha);
    const runs = pull?.checkRuns ?? [];
    const statuses = pull?.statuses ?? [];
    const failed = [
      ...runs
        .filter((run) => run.status === 'completed' && !PASSING.includes(run.conclusion ?? ''))
        .map((run) => `${run.name} (${run.conclusion ?? 'no conclusion'})`),
      ...statuses.filter((status) => status.state === 'failure' || status.state === 'error').map((status) => `${status.context} (${status.state})`),
    ];
    if (failed.length > 0) return { state: 'failed', failed };
    const pending = [
      ...runs.filter((run) => run.status !== 'completed').map((run) => run.name),
      ...statuses.filter((s) => s.state === 'pending').map((s) => s.context),
    ];
    if (pending.length > 0) return { state: 'pending', pending };
    // Passed only on evidence: at least one check that succeeded (skipped and neutral ones fail nothing, prove nothing).
    const succeeded = runs.some((run) => run.conclusion === 'success') || statuses.some((status) => status.state === 'success');
    return succeeded ? { state: 'passed' } : { state: 'pending', pending: [] };
  }

  async merge(number: number, sha: string): Promise<MergeOutcome> {
    const pull = this.pulls.get(number);
    if (!pull) throw new Error(`no pull request #${number}`);
    if (pull.refuseMerge) return { merged: false, reason: pull.refuseMerge.message };
    if (!pull.open) return { merged: false, reason: 'Pull Request is not mergeable' };
    if (pull.sha !== sha) return { merged: false, reason: 'Head branch was modified. Review and try the merge again.' };
    pull.merged = true;
    pull.open = false;
    return { merged: true, sha: mergeCommitOf(pull) };
  }
}
