import type { ChangedFiles, ChecksOutcome, MergeOutcome, PullRequest, PullRequests } from '../../src/ports/pull-requests.js';
import type { FakePull } from '../support/fake-github.js';

const PASSING = ['success', 'neutral', 'skipped'];
/** The most files of a pull request the code host lists (GitHub's limit). */
export const LISTED_FILES = 3000;

/** PullRequests over pull requests held in a Map (the fake GitHub's shape); passes the same contract suite as the GitHub adapter. */
export class InMemoryPullRequests implements PullRequests {
  readonly pulls = new Map<number, FakePull>();

  async forBranch(branch: string): Promise<PullRequest | null> {
    const [pull] = [...this.pulls.values()].filter((candidate) => candidate.branch === branch).sort((a, b) => b.number - a.number);
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

  /** Lists at most LISTED_FILES files, as GitHub does. */
  async changedFiles(number: number): Promise<ChangedFiles> {
    const files = this.pulls.get(number)?.files ?? [];
    const paths = files.slice(0, LISTED_FILES).flatMap((file) => (typeof file === 'string' ? [file] : [file.filename, file.previous_filename]));
    return { paths, changed: files.length, complete: files.length <= LISTED_FILES };
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
    return runs.length === 0 && statuses.length === 0 ? { state: 'pending', pending: [] } : { state: 'passed' };
  }

  async merge(number: number, sha: string): Promise<MergeOutcome> {
    const pull = this.pulls.get(number);
    if (!pull) throw new Error(`no pull request #${number}`);
    if (pull.refuseMerge) return { merged: false, reason: pull.refuseMerge.message };
    if (!pull.open) return { merged: false, reason: 'Pull Request is not mergeable' };
    if (pull.sha !== sha) return { merged: false, reason: 'Head branch was modified. Review and try the merge again.' };
    pull.merged = true;
    pull.open = false;
    return { merged: true };
  }
}
