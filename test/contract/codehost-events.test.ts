import { expect } from 'chai';
import { GithubEvents } from '../../src/adapters/codehost/github-events.js';
import { describeCodehostEventsContract } from './codehost-events.contract.js';

/** GitHub's webhook payloads, as much of them as is read. */
describeCodehostEventsContract("GitHub's workflow_run and pull_request events", {
  events: (jobs) => new GithubEvents(jobs),
  run: (branch, state, url, origin = {}) => [
    'workflow_run',
    {
      action: state === 'started' ? 'in_progress' : 'completed',
      workflow_run: {
        id: 9,
        html_url: url,
        head_branch: branch,
        head_sha: 'abc',
        status: state === 'started' ? 'in_progress' : 'completed',
        conclusion: state === 'started' ? null : state,
        head_repository: { full_name: origin.headRepository ?? origin.repository ?? 'acme/app' },
        path: `.github/workflows/${origin.workflow ?? 'agent-job.yml'}`,
      },
      repository: { full_name: origin.repository ?? 'acme/app' },
    },
  ],
  pullRequest: (branch, url, origin = {}) => [
    'pull_request',
    {
      action: 'opened',
      number: 3,
      pull_request: {
        html_url: url,
        merged: false,
        head: { ref: branch, sha: 'abc', repo: { full_name: origin.headRepository ?? origin.repository ?? 'acme/app' } },
        base: { ref: 'main', repo: { full_name: origin.repository ?? 'acme/app' } },
      },
      repository: { full_name: origin.repository ?? 'acme/app' },
    },
  ],
  otherEvents: ['push', 'issues', 'ping', 'check_run', 'release'],
});

describe("GitHub's workflow_run events of a run on the agent's own commit ([agent-done])", () => {
  const JOB = '4f1c2a3b-5d6e-4f70-8a9b-0c1d2e3f4a5b';
  const events = new GithubEvents({ repo: 'acme/app', workflow: 'agent-job.yml' });
  const run = (action: string, conclusion: string | null, message: string) => ({
    action,
    workflow_run: {
      id: 10,
      html_url: 'https://github.test/acme/app/actions/runs/10',
      head_branch: `job/${JOB}`,
      head_sha: 'def',
      head_commit: { message },
      status: action === 'completed' ? 'completed' : 'in_progress',
      conclusion,
      head_repository: { full_name: 'acme/app' },
      path: '.github/workflows/agent-job.yml',
    },
    repository: { full_name: 'acme/app' },
  });

  it("takes none of its events for news, before it ends too: its page never replaces the real run's, its end never ends the job", () => {
    const done = `job ${JOB}: agent work [agent-done]`;
    expect(events.jobUpdate('workflow_run', run('requested', null, done))).to.equal(null);
    expect(events.jobUpdate('workflow_run', run('in_progress', null, done))).to.equal(null);
    expect(events.jobUpdate('workflow_run', run('completed', 'skipped', done))).to.equal(null);
    expect(events.jobUpdate('workflow_run', run('completed', 'success', done))).to.equal(null);
  });

  it("still takes the job's own run, on the gateway's commit", () => {
    expect(events.jobUpdate('workflow_run', run('in_progress', null, `job ${JOB}: start`))).to.deep.equal({
      jobId: JOB,
      change: { status: 'running', runUrl: 'https://github.test/acme/app/actions/runs/10' },
    });
  });
});

describe("GitHub's events of the gateway's own job branches (ownJobBranch: they run no agent action)", () => {
  const JOB = '4f1c2a3b-5d6e-4f70-8a9b-0c1d2e3f4a5b';
  const BRANCH = `job/${JOB}`;
  const events = new GithubEvents({ repo: 'Acme/App', workflow: 'agent-job.yml' });
  const repository = (name = 'acme/app') => ({ repository: { full_name: name } });

  it('names the job branch of a push, its creation and deletion, its pull request, runs, workflow jobs, checks, deployments and statuses', () => {
    const cases: Array<[string, object]> = [
      ['push', { ref: `refs/heads/${BRANCH}`, commits: [], ...repository() }],
      ['create', { ref: BRANCH, ref_type: 'branch', ...repository() }],
      ['delete', { ref: BRANCH, ref_type: 'branch', ...repository() }],
      ['pull_request', { pull_request: { head: { ref: BRANCH, repo: { full_name: 'ACME/app' } } }, ...repository() }],
      ['workflow_run', { workflow_run: { head_branch: BRANCH, head_repository: { full_name: 'acme/app' } }, ...repository() }],
      ['workflow_job', { workflow_job: { head_branch: BRANCH }, ...repository() }],
      ['check_suite', { check_suite: { head_branch: BRANCH }, ...repository() }],
      ['check_run', { check_run: { check_suite: { head_branch: BRANCH } }, ...repository() }],
      ['deployment', { deployment: { ref: BRANCH }, ...repository() }],
      ['deployment_status', { deployment: { ref: BRANCH }, deployment_status: {}, ...repository() }],
      ['status', { branches: [{ name: BRANCH }], ...repository() }],
    ];
    for (const [event, payload] of cases) expect(events.ownJobBranch(event, payload), event).to.equal(BRANCH);
  });

  it("names none for another branch, a tag, a fork's branch, another repository's, or an event people cause (a review)", () => {
    expect(events.ownJobBranch('push', { ref: 'refs/heads/main', ...repository() })).to.equal(undefined);
    expect(events.ownJobBranch('push', { ref: `refs/tags/${BRANCH}`, ...repository() })).to.equal(undefined);
    expect(events.ownJobBranch('push', { ref: 'refs/heads/job/not-a-uuid', ...repository() })).to.equal(undefined);
    expect(events.ownJobBranch('create', { ref: BRANCH, ref_type: 'tag', ...repository() })).to.equal(undefined);
    expect(events.ownJobBranch('push', { ref: `refs/heads/${BRANCH}`, ...repository('acme/other') })).to.equal(undefined);
    expect(events.ownJobBranch('pull_request', { pull_request: { head: { ref: BRANCH, repo: { full_name: 'mallory/app' } } }, ...repository() })).to.equal(
      undefined,
    );
    expect(events.ownJobBranch('pull_request', { pull_request: { head: { ref: BRANCH, repo: null } }, ...repository() })).to.equal(undefined);
    expect(
      events.ownJobBranch('workflow_run', { workflow_run: { head_branch: BRANCH, head_repository: { full_name: 'mallory/app' } }, ...repository() }),
    ).to.equal(undefined);
    expect(events.ownJobBranch('status', { branches: [{ name: BRANCH }, { name: 'main' }], ...repository() })).to.equal(undefined);
    expect(events.ownJobBranch('pull_request_review', { pull_request: { head: { ref: BRANCH, repo: { full_name: 'acme/app' } } }, ...repository() })).to.equal(
      undefined,
    );
  });

  it("tells the event from the payload when its name is not known, and any repository's own branch when none is configured", () => {
    expect(events.ownJobBranch(undefined, { ref: `refs/heads/${BRANCH}`, commits: [], ...repository() })).to.equal(BRANCH);
    expect(events.ownJobBranch(undefined, { zen: 'z', hook_id: 1, ...repository() })).to.equal(undefined);
    expect(new GithubEvents().ownJobBranch('push', { ref: `refs/heads/${BRANCH}`, ...repository('someone/else') })).to.equal(BRANCH);
  });
});

describe("GitHub's events of the commits of an auto-merge (commits: an event of a recorded merge commit runs no agent action)", () => {
  const events = new GithubEvents({ repo: 'Acme/App', workflow: 'agent-job.yml' });
  const repository = (name = 'acme/app') => ({ repository: { full_name: name } });
  const HEAD = 'AB'.repeat(20);
  const MERGE = 'cd'.repeat(20);
  const BEFORE = 'ef'.repeat(20);

  it("names a push's head first, then each commit it brings (once, lower case); the head commit of runs, jobs, checks, statuses (and their parents) and deployments", () => {
    const push = { ref: 'refs/heads/main', before: BEFORE, after: MERGE, commits: [{ id: HEAD }, { id: MERGE }], ...repository() };
    expect(events.commits('push', push)).to.deep.equal([MERGE, HEAD.toLowerCase()]);
    const cases: Array<[string, object]> = [
      ['workflow_run', { workflow_run: { head_branch: 'main', head_sha: MERGE }, ...repository() }],
      ['workflow_job', { workflow_job: { head_branch: 'main', head_sha: MERGE }, ...repository() }],
      ['check_suite', { check_suite: { head_branch: 'main', head_sha: MERGE }, ...repository() }],
      ['check_run', { check_run: { head_sha: MERGE, check_suite: { head_branch: 'main', head_sha: MERGE } }, ...repository() }],
      ['deployment', { deployment: { ref: 'main', sha: MERGE }, ...repository() }],
      ['deployment_status', { deployment: { ref: 'main', sha: MERGE }, deployment_status: {}, ...repository() }],
    ];
    for (const [event, payload] of cases) expect(events.commits(event, payload), event).to.deep.equal([MERGE]);
    expect(events.commits('status', { sha: MERGE, commit: { parents: [{ sha: BEFORE }, { sha: HEAD }] }, ...repository() })).to.deep.equal([
      MERGE,
      BEFORE,
      HEAD.toLowerCase(),
    ]);
    expect(events.commits(undefined, push), 'told from the payload').to.include(MERGE);
  });

  it("names none for a push deleting a branch, what is no commit id, another repository's event, or an event naming no commit (an issue)", () => {
    expect(events.commits('push', { ref: 'refs/heads/main', before: MERGE, after: '0'.repeat(40), commits: [{ id: HEAD }], ...repository() })).to.deep.equal(
      [],
    );
    expect(events.commits('push', { ref: 'refs/heads/main', after: 'm3rg3d', commits: [{ id: HEAD }], ...repository() })).to.deep.equal([]);
    expect(events.commits('push', { ref: 'refs/heads/main', after: MERGE, commits: [{ id: 'x' }, { id: 7 }], ...repository() })).to.deep.equal([MERGE]);
    expect(events.commits('push', { ref: 'refs/heads/main', after: MERGE, commits: [], ...repository('mallory/app') })).to.deep.equal([]);
    expect(events.commits('issues', { action: 'opened', issue: { number: 1 }, ...repository() })).to.deep.equal([]);
    expect(new GithubEvents().commits('push', { ref: 'refs/heads/main', after: MERGE, commits: [], ...repository('someone/else') })).to.deep.equal([MERGE]);
  });
});
