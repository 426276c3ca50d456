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
