import { expect } from 'chai';
import type { PullRequests } from '../../src/ports/pull-requests.js';
import { type FakeFiles, type FakePull, mergeCommitOf } from '../support/fake-github.js';

export interface PullRequestsHarness {
  readonly pullRequests: PullRequests;
  /** The code host's pull requests, as the test sets them up (the fake GitHub's, or the fake's own). */
  readonly pulls: Map<number, FakePull>;
  /** The files of commits that are no pull's head, by sha. */
  readonly commitFiles: Map<string, FakeFiles>;
  close(): Promise<void>;
}

const pull = (overrides: Partial<FakePull> = {}): FakePull => ({
  number: 7,
  branch: 'job/00000000-0000-4000-8000-000000000007',
  sha: 'head7',
  files: ['logs/7/job.md'],
  checkRuns: [{ name: 'agent-job', status: 'completed', conclusion: 'success' }],
  open: true,
  merged: false,
  ...overrides,
});

/** The behaviour every PullRequests adapter must have. */
export const describePullRequestsContract = (name: string, open: () => Promise<PullRequestsHarness>): void => {
  describe(`PullRequests contract: ${name}`, function () {
    this.timeout(30_000);
    let harness: PullRequestsHarness;
    let prs: PullRequests;
    before(async () => {
      harness = await open();
      prs = harness.pullRequests;
    });
    beforeEach(() => {
      harness.pulls.clear();
      harness.commitFiles.clear();
    });
    after(async () => harness?.close());

    it('finds the newest pull request of a branch with its number, URL, head and state; null for a branch without one', async () => {
      harness.pulls.set(7, pull());
      harness.pulls.set(9, pull({ number: 9, sha: 'head9' }));
      harness.pulls.set(8, pull({ number: 8, branch: 'job/other', sha: 'head8' }));
      expect(await prs.forBranch('job/00000000-0000-4000-8000-000000000007')).to.deep.equal({
        number: 9,
        url: 'https://github.com/acme/app/pull/9',
        headSha: 'head9',
        open: true,
        merged: false,
        base: 'main',
        defaultBranch: 'main',
      });
      expect(await prs.forBranch('job/none')).to.equal(null);
    });

    it("finds only a pull request from the repository's own branch: never a fork's of the same name, even a fork of the same owner (within the organisation)", async () => {
      harness.pulls.set(7, pull());
      harness.pulls.set(8, pull({ number: 8, sha: 'fork8', headRepo: 'acme/app-fork' }));
      harness.pulls.set(9, pull({ number: 9, sha: 'fork9', headRepo: 'mallory/app' }));
      expect(await prs.forBranch(pull().branch)).to.include({ number: 7, headSha: 'head7' });
      harness.pulls.delete(7);
      expect(await prs.forBranch(pull().branch)).to.equal(null);
    });

    it("tells the branch a pull request merges into, and the repository's default branch", async () => {
      harness.pulls.set(7, pull({ base: 'release' }));
      expect(await prs.forBranch(pull().branch)).to.include({ number: 7, base: 'release', defaultBranch: 'main' });
    });

    it('finds a merged pull request too, as closed and merged', async () => {
      harness.pulls.set(7, pull({ open: false, merged: true }));
      expect(await prs.forBranch(pull().branch)).to.include({ number: 7, open: false, merged: true });
    });

    it('lists every file a commit changes against the base branch, both paths of a rename', async () => {
      const files = [...Array.from({ length: 230 }, (_, i) => `logs/${i}.txt`), { filename: 'docs/new.md', previous_filename: 'src/old.md' }];
      harness.pulls.set(7, pull({ files }));
      const listed = await prs.changedFiles('main', 'head7');
      expect(listed).to.include({ listed: 231, complete: true });
      expect(listed.paths).to.have.length(232);
      expect(listed.paths.slice(0, 2)).to.deep.equal(['logs/0.txt', 'logs/1.txt']);
      expect(listed.paths.slice(-2)).to.deep.equal(['docs/new.md', 'src/old.md']);
    });

    it("lists the files of the commit asked for, not those of the pull request's head by now (force-pushed since)", async () => {
      harness.pulls.set(7, pull({ sha: 'clean7', files: ['logs/7/job.md'] }));
      harness.commitFiles.set('head7', ['logs/7/job.md', '.github/workflows/ci.yml']);
      expect((await prs.changedFiles('main', 'head7')).paths).to.deep.equal(['logs/7/job.md', '.github/workflows/ci.yml']);
      expect((await prs.changedFiles('main', 'clean7')).paths).to.deep.equal(['logs/7/job.md']);
    });

    it('says the list is incomplete when it reaches what the host lists (GitHub compare: 300 files)', async () => {
      harness.pulls.set(7, pull({ files: Array.from({ length: 299 }, (_, i) => `logs/7/${i}.txt`) }));
      expect(await prs.changedFiles('main', 'head7')).to.include({ listed: 299, complete: true });
      // Listed in path order: what sorts after the first 300 would never be seen.
      const files = [...Array.from({ length: 300 }, (_, i) => `logs/7/${String(i).padStart(4, '0')}.txt`), 'src/server.ts'];
      harness.pulls.set(7, pull({ files }));
      const listed = await prs.changedFiles('main', 'head7');
      expect(listed).to.include({ listed: 300, complete: false });
      expect(listed.paths).not.to.include('src/server.ts');
    });

    it('throws for a commit the host does not know', async () => {
      let thrown: unknown;
      await prs.changedFiles('main', 'unknown').catch((error: unknown) => (thrown = error));
      expect(thrown).to.be.instanceOf(Error);
    });

    it('never passes a head without any check run or status: pending, naming none', async () => {
      harness.pulls.set(7, pull({ checkRuns: [], statuses: [] }));
      expect(await prs.checks('head7')).to.deep.equal({ state: 'pending', pending: [] });
      harness.pulls.set(7, pull({ checkRuns: [] }));
      expect(await prs.checks('head7')).to.deep.equal({ state: 'pending', pending: [] });
    });

    it('never passes a head whose checks all skipped or came out neutral (the agent workflow run a push starts again skips): pending, naming none', async () => {
      harness.pulls.set(7, pull({ checkRuns: [{ name: 'agent', status: 'completed', conclusion: 'skipped' }], statuses: [] }));
      expect(await prs.checks('head7')).to.deep.equal({ state: 'pending', pending: [] });
      harness.pulls.set(
        7,
        pull({
          checkRuns: [
            { name: 'agent', status: 'completed', conclusion: 'skipped' },
            { name: 'publish', status: 'completed', conclusion: 'neutral' },
          ],
          statuses: [],
        }),
      );
      expect(await prs.checks('head7')).to.deep.equal({ state: 'pending', pending: [] });
    });

    it('passes checks that succeeded, were neutral or skipped; one commit status alone is enough', async () => {
      harness.pulls.set(7, pull({ checkRuns: [], statuses: [{ context: 'ci/legacy', state: 'success' }] }));
      expect(await prs.checks('head7')).to.deep.equal({ state: 'passed' });
      harness.pulls.set(
        7,
        pull({
          checkRuns: [
            { name: 'a', status: 'completed', conclusion: 'success' },
            { name: 'b', status: 'completed', conclusion: 'neutral' },
            { name: 'c', status: 'completed', conclusion: 'skipped' },
          ],
          statuses: [{ context: 'ci/legacy', state: 'success' }],
        }),
      );
      expect(await prs.checks('head7')).to.deep.equal({ state: 'passed' });
    });

    it('reports failed check runs and failed or errored statuses by name, before pending ones; pending ones while any runs', async () => {
      harness.pulls.set(
        7,
        pull({
          checkRuns: [
            { name: 'tests', status: 'completed', conclusion: 'failure' },
            { name: 'lint', status: 'in_progress', conclusion: null },
            { name: 'deploy', status: 'completed', conclusion: 'cancelled' },
          ],
          statuses: [{ context: 'ci/legacy', state: 'error' }],
        }),
      );
      expect(await prs.checks('head7')).to.deep.equal({ state: 'failed', failed: ['tests (failure)', 'deploy (cancelled)', 'ci/legacy (error)'] });
      harness.pulls.set(7, pull({ checkRuns: [{ name: 'lint', status: 'queued', conclusion: null }], statuses: [{ context: 'ci/legacy', state: 'pending' }] }));
      expect(await prs.checks('head7')).to.deep.equal({ state: 'pending', pending: ['lint', 'ci/legacy'] });
    });

    it('reads check runs over all pages', async () => {
      const runs = Array.from({ length: 120 }, (_, i) => ({ name: `c${i}`, status: 'completed', conclusion: 'success' }));
      harness.pulls.set(7, pull({ checkRuns: [...runs, { name: 'last', status: 'completed', conclusion: 'failure' }] }));
      expect(await prs.checks('head7')).to.deep.equal({ state: 'failed', failed: ['last (failure)'] });
    });

    it('reads commit statuses over all pages', async () => {
      const statuses = Array.from({ length: 130 }, (_, i) => ({ context: `s${i}`, state: 'success' }));
      harness.pulls.set(7, pull({ checkRuns: [], statuses: [...statuses, { context: 'ci/last', state: 'failure' }] }));
      expect(await prs.checks('head7')).to.deep.equal({ state: 'failed', failed: ['ci/last (failure)'] });
    });

    it('merges at the given head; refuses (merged: false, with the reason) when the head moved or the host will not merge', async () => {
      harness.pulls.set(7, pull());
      expect(await prs.merge(7, 'moved')).to.deep.include({ merged: false });
      expect((await prs.forBranch(pull().branch))?.merged).to.equal(false);
      // With the merge commit (the code host's answer names it).
      expect(await prs.merge(7, 'head7')).to.deep.equal({ merged: true, sha: mergeCommitOf({ number: 7, sha: 'head7' }) });
      expect(await prs.forBranch(pull().branch)).to.include({ merged: true, open: false });
      harness.pulls.set(8, pull({ number: 8, branch: 'job/x', sha: 'h8', refuseMerge: { status: 405, message: 'Pull Request is not mergeable' } }));
      const refused = await prs.merge(8, 'h8');
      expect(refused.merged).to.equal(false);
      expect(refused.merged === false && refused.reason).to.contain('Pull Request is not mergeable');
    });
  });
};
