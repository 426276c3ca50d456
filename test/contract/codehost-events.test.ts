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
