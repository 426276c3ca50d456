import { expect } from 'chai';
import { AUTO_MERGE_QUEUE, AutoMergeJob, RequestAutoMerge } from '../../../../src/application/jobs/auto-merge-job.js';
import { PollJobs } from '../../../../src/application/jobs/poll-jobs.js';
import type { JobRunner } from '../../../../src/ports/job-runner.js';
import { compileGlobs } from '../../../../src/domain/jobs/allowed-paths.js';
import type { Job, JobStatus } from '../../../../src/domain/jobs/job.js';
import type { ChangedFiles, ChecksOutcome, MergeOutcome, PullRequest, PullRequests } from '../../../../src/ports/pull-requests.js';
import { FixedClock } from '../../../fakes/fixed-clock.js';
import { InMemoryJobRepository } from '../../../fakes/in-memory-job-repository.js';
import { InMemoryTaskQueue } from '../../../fakes/in-memory-task-queue.js';
import { RecordingLogger } from '../../../fakes/recording-logger.js';

const ID = '00000000-0000-4000-8000-000000000001';

const OPEN_PR: PullRequest = { number: 5, url: 'https://code.test/pull/5', headSha: 'abc', open: true, merged: false, base: 'main', defaultBranch: 'main' };

class ScriptedPullRequests implements PullRequests {
  readonly merges: Array<[number, string]> = [];
  pr: PullRequest | null = OPEN_PR;
  /** The files of the head commit `abc`. */
  files = ['logs/1/job.md'];
  /** The files of other commits, by sha. */
  readonly otherFiles = new Map<string, string[]>();
  readonly filesAsked: Array<[string, string]> = [];
  complete = true;
  outcome: ChecksOutcome = { state: 'passed' };
  mergeOutcome: MergeOutcome = { merged: true };
  async forBranch(_branch: string): Promise<PullRequest | null> {
    return this.pr;
  }
  async changedFiles(base: string, sha: string): Promise<ChangedFiles> {
    this.filesAsked.push([base, sha]);
    const paths = sha === OPEN_PR.headSha ? this.files : this.otherFiles.get(sha);
    if (!paths) throw new Error(`no commit ${sha}`);
    return { paths, listed: paths.length, complete: this.complete };
  }
  async checks(_sha: string): Promise<ChecksOutcome> {
    return this.outcome;
  }
  async merge(number: number, sha: string): Promise<MergeOutcome> {
    this.merges.push([number, sha]);
    return this.mergeOutcome;
  }
}

const job = (status: JobStatus): Job => ({
  id: ID,
  job: 'Fix',
  status,
  source: { kind: 'api' },
  llmProvider: null,
  llmModel: null,
  branch: `job/${ID}`,
  prUrl: null,
  runUrl: null,
  summary: `Handed over on job/${ID}`,
  error: null,
  log: null,
  createdAt: new Date(0),
  updatedAt: new Date(0),
});

const setup = async (status: JobStatus = 'succeeded', allowed = ['logs/**']) => {
  const jobs = new InMemoryJobRepository();
  await jobs.add(job(status));
  const prs = new ScriptedPullRequests();
  const autoMerge = new AutoMergeJob(jobs, prs, { allowedPaths: allowed, globs: compileGlobs(allowed) }, new FixedClock(), new RecordingLogger());
  const summary = async () => (await jobs.get(ID))?.summary;
  return { jobs, prs, run: () => autoMerge.execute({ jobId: ID }), summary };
};

describe('AutoMergeJob', () => {
  it('merges the pull request of a succeeded job at its head when every file is allowed and the checks passed', async () => {
    const { prs, run, summary, jobs } = await setup();
    await run();
    expect(prs.merges).to.deep.equal([[5, 'abc']]);
    expect(await summary()).to.equal(`Handed over on job/${ID}\nAuto-merge: merged pull request #5`);
    expect((await jobs.get(ID))?.prUrl).to.equal('https://code.test/pull/5');
  });

  it('leaves it open when a file is outside ALLOWED_PATHS, naming the files', async () => {
    const { prs, run, summary } = await setup();
    prs.files = ['logs/1/job.md', 'src/app.ts', '.github/workflows/ci.yml'];
    await run();
    expect(prs.merges).to.deep.equal([]);
    expect(await summary()).to.contain(
      'Auto-merge: not merged: pull request #5 changes 2 files outside ALLOWED_PATHS (logs/**): src/app.ts, .github/workflows/ci.yml',
    );
  });

  it('leaves it open when the code host lists fewer files than the pull request changes: the rest cannot be checked', async () => {
    const { prs, run, summary } = await setup();
    prs.files = ['logs/1/job.md', 'logs/1/a.md', 'logs/1/b.md'];
    prs.complete = false;
    await run();
    expect(prs.merges).to.deep.equal([]);
    expect(await summary()).to.contain(
      'Auto-merge: not merged: pull request #5 changes 3 files or more, more than the code host lists, so they cannot all be checked against ALLOWED_PATHS',
    );
  });

  it('checks the files of the head commit it merges, not of whatever the branch holds by then (review L4)', async () => {
    const { prs, run, summary } = await setup();
    // Head `abc` changes a workflow; the branch was force-pushed to a clean commit meanwhile.
    prs.files = ['logs/1/job.md', '.github/workflows/ci.yml'];
    prs.otherFiles.set('clean', ['logs/1/job.md']);
    await run();
    expect(prs.filesAsked).to.deep.equal([['main', 'abc']]);
    expect(prs.merges).to.deep.equal([]);
    expect(await summary()).to.contain('Auto-merge: not merged: pull request #5 changes a file outside ALLOWED_PATHS (logs/**): .github/workflows/ci.yml');
  });

  it('names at most ten paths and counts the rest', async () => {
    const { prs, run, summary } = await setup();
    prs.files = Array.from({ length: 13 }, (_, i) => `src/f${i}.ts`);
    await run();
    expect(await summary()).to.match(/src\/f9\.ts and 3 more$/);
  });

  it('leaves it open when a check failed, naming the check', async () => {
    const { prs, run, summary } = await setup();
    prs.outcome = { state: 'failed', failed: ['test (failure)'] };
    await run();
    expect(prs.merges).to.deep.equal([]);
    expect(await summary()).to.contain('Auto-merge: not merged: pull request #5 has failed checks: test (failure)');
  });

  it('waits for pending checks and for a missing pull request, then merges on a later attempt', async () => {
    const { prs, run, summary } = await setup();
    prs.pr = null;
    await run();
    expect(await summary()).to.contain(`Auto-merge: waiting for a pull request from job/${ID}`);
    prs.pr = OPEN_PR;
    prs.outcome = { state: 'pending', pending: ['lint'] };
    await run();
    expect(await summary()).to.contain('Auto-merge: waiting for checks of pull request #5: lint');
    prs.outcome = { state: 'passed' };
    await run();
    expect(prs.merges).to.have.length(1);
    expect((await summary())?.match(/Auto-merge:/g)).to.have.length(1);
  });

  it('waits while the head has no check at all (none has started, or none runs on it), then merges once one passed', async () => {
    const { prs, run, summary } = await setup();
    prs.outcome = { state: 'pending', pending: [] };
    await run();
    expect(prs.merges).to.deep.equal([]);
    expect(await summary()).to.contain('Auto-merge: waiting for checks of pull request #5: none has started (no check run or status on its head)');
    prs.outcome = { state: 'passed' };
    await run();
    expect(prs.merges).to.deep.equal([[5, 'abc']]);
  });

  it('leaves it open when it is not into the default branch, whatever its files and checks', async () => {
    const { prs, run, summary } = await setup();
    prs.pr = { ...OPEN_PR, base: 'release' };
    await run();
    expect(prs.merges).to.deep.equal([]);
    expect(await summary()).to.contain('Auto-merge: not merged: pull request #5 is into release, not the default branch main');
  });

  it('says why when the code host refuses the merge', async () => {
    const { prs, run, summary } = await setup();
    prs.mergeOutcome = { merged: false, reason: 'Pull Request is not mergeable' };
    await run();
    expect(await summary()).to.contain('Auto-merge: not merged: the code host refused to merge pull request #5: Pull Request is not mergeable');
  });

  it("records the head it merges before asking for the merge, and the merge commit the code host answers with (their events are the job's own)", async () => {
    const { prs, run, jobs } = await setup();
    const head = 'ab'.repeat(20);
    const merge = 'cd'.repeat(20);
    prs.pr = { ...OPEN_PR, headSha: head };
    prs.otherFiles.set(head, ['logs/1/job.md']);
    prs.mergeOutcome = { merged: true, sha: merge };
    let recordedWhenAsked: string | null | undefined;
    const merge0 = prs.merge.bind(prs);
    prs.merge = async (number, sha) => ((recordedWhenAsked = await jobs.jobOfMergeCommit([head])), merge0(number, sha));
    await run();
    expect(prs.merges).to.deep.equal([[5, head]]);
    expect(recordedWhenAsked, 'the head, before the merge is asked for').to.equal(ID);
    expect(await jobs.jobOfMergeCommit([merge])).to.equal(ID);
    expect([...jobs.mergeCommits.keys()].sort()).to.deep.equal([head, merge]);
  });

  it('records no merge commit when the code host refuses the merge (the head it asked for only)', async () => {
    const { prs, run, jobs } = await setup();
    const head = 'ab'.repeat(20);
    prs.pr = { ...OPEN_PR, headSha: head };
    prs.otherFiles.set(head, ['logs/1/job.md']);
    prs.mergeOutcome = { merged: false, reason: 'Pull Request is not mergeable' };
    await run();
    expect([...jobs.mergeCommits.keys()]).to.deep.equal([head]);
  });

  it('does nothing for a job that did not succeed, or a pull request already merged', async () => {
    for (const status of ['running', 'failed', 'cancelled'] as const) {
      const { prs, run, summary } = await setup(status);
      await run();
      expect(prs.merges).to.deep.equal([]);
      expect(await summary()).to.equal(`Handed over on job/${ID}`);
    }
    const { prs, run, summary } = await setup();
    prs.pr = { ...OPEN_PR, url: 'u', open: false, merged: true };
    await run();
    expect(prs.merges).to.deep.equal([]);
    expect(await summary()).to.equal(`Handed over on job/${ID}`);
  });
});

describe('RequestAutoMerge', () => {
  it('queues an attempt for a succeeded job only', async () => {
    const queue = new InMemoryTaskQueue();
    const request = new RequestAutoMerge(queue);
    await request.execute(job('running'));
    await request.execute(job('succeeded'));
    expect(queue.tasks).to.deep.equal([{ queue: AUTO_MERGE_QUEUE, payload: { jobId: ID } }]);
  });

  it('queues one attempt per cause (a delivery) and job: the same cause again queues none; without a cause, one each time', async () => {
    const queue = new InMemoryTaskQueue();
    const request = new RequestAutoMerge(queue);
    for (let i = 0; i < 3; i++) await request.execute(job('succeeded'), 'codehost:d-1');
    await request.execute(job('succeeded'), 'codehost:d-2');
    expect(queue.tasks).to.have.length(2);
    await request.execute(job('succeeded'));
    await request.execute(job('succeeded'));
    expect(queue.tasks).to.have.length(4);
  });
});

describe('PollJobs with auto-merge', () => {
  it('hands each job a poll updated, as stored afterwards, to the after-update hook', async () => {
    const jobs = new InMemoryJobRepository();
    await jobs.add(job('running'));
    const runner: JobRunner = { kind: 'remote', run: async () => undefined, poll: async () => ({ status: 'succeeded', runUrl: 'https://code.test/runs/1' }) };
    const queue = new InMemoryTaskQueue();
    const request = new RequestAutoMerge(queue);
    await new PollJobs(jobs, runner, new FixedClock(), new RecordingLogger(), (updated) => request.execute(updated)).execute();
    expect(queue.tasks).to.deep.equal([{ queue: AUTO_MERGE_QUEUE, payload: { jobId: ID } }]);
  });
});
