import { createRequire } from 'node:module';
import { expect } from 'chai';
import { CHECKED_GITHUB_EVENTS, githubBodyIsUnique, githubEventMismatch } from '../../../../src/adapters/codehost/github-event-shapes.js';

interface ExampleSet {
  readonly name: string;
  readonly examples: readonly unknown[];
}

/** GitHub's example payloads collected by Octokit (@octokit/webhooks-examples): github.com's and each GitHub Enterprise Server's. */
const require = createRequire(import.meta.url);
const EXAMPLES: ReadonlyArray<readonly [string, readonly ExampleSet[]]> = ['api.github.com', 'ghes-31', 'ghes-32', 'ghes-33', 'ghes-34', 'ghes-35'].map(
  (host) => [host, require(`@octokit/webhooks-examples/${host}/index.json`) as ExampleSet[]],
);

describe('GitHub event shapes (the X-GitHub-Event header against the signed payload)', () => {
  it("passes every one of GitHub's example payloads with its own event name (329 of github.com, and GitHub Enterprise Server's)", () => {
    const refused: string[] = [];
    let count = 0;
    for (const [host, sets] of EXAMPLES) {
      for (const { name, examples } of sets) {
        examples.forEach((payload, i) => {
          count++;
          const mismatch = githubEventMismatch(name, payload);
          if (mismatch !== undefined) refused.push(`${host} ${name} #${i}: ${mismatch}`);
        });
      }
    }
    expect(refused).to.deep.equal([]);
    expect(EXAMPLES[0]?.[1].flatMap((set) => set.examples)).to.have.length(329);
    expect(count).to.be.greaterThan(329);
  });

  it('refuses every example payload sent as another checked event', () => {
    const passed: string[] = [];
    for (const [host, sets] of EXAMPLES) {
      for (const { name, examples } of sets) {
        for (const claimed of CHECKED_GITHUB_EVENTS.filter((event) => event !== name)) {
          examples.forEach((payload, i) => {
            if (githubEventMismatch(claimed, payload) === undefined) passed.push(`${host} ${name} #${i} as ${claimed}`);
          });
        }
      }
    }
    expect(passed).to.deep.equal([]);
  });

  it('checks the events the gateway acts on and the common ones, and names what does not match', () => {
    expect(CHECKED_GITHUB_EVENTS).to.include.members(['ping', 'push', 'pull_request', 'workflow_run', 'check_suite', 'issues', 'issue_comment', 'release']);
    expect(githubEventMismatch('push', { ref: 'refs/heads/main' })).to.equal('X-GitHub-Event push does not match the payload: it has no commits (an array)');
    expect(githubEventMismatch('pull_request', { number: 1, pull_request: null })).to.equal(
      'X-GitHub-Event pull_request does not match the payload: it has no pull_request (an object)',
    );
    expect(githubEventMismatch('pull_request', { number: 1, pull_request: {}, review: {} })).to.equal(undefined);
    expect(githubEventMismatch('pull_request', { pull_request: {}, review: {} })).to.equal(
      'X-GitHub-Event pull_request does not match the payload: it has no number (a number)',
    );
    expect(githubEventMismatch('commit_comment', { comment: {}, pull_request: {} })).to.equal(
      'X-GitHub-Event commit_comment does not match the payload: it is a payload of pull_request_review_comment',
    );
    expect(githubEventMismatch('workflow_run', { workflow_run: {}, deployment: {} })).to.equal(
      'X-GitHub-Event workflow_run does not match the payload: it has a deployment, which workflow_run payloads never have',
    );
    for (const payload of [[], 'text', 3, null]) {
      expect(githubEventMismatch('push', payload), JSON.stringify(payload)).to.equal('X-GitHub-Event push does not match the payload: it is not a JSON object');
    }
  });

  it('passes deployment_review payloads as GitHub types them: approved and rejected without environment, requested with workflow_run null', () => {
    const repository = { full_name: 'acme/app' };
    const sender = { login: 'octocat' };
    const workflowRun = { id: 1, name: 'deploy', head_branch: 'main', status: 'waiting' };
    const approved = {
      action: 'approved',
      since: '2026-11-30T10:00:00Z',
      workflow_run: workflowRun,
      workflow_job_run: { id: 2, environment: 'production' },
      repository,
      sender,
    };
    const rejected = { ...approved, action: 'rejected', comment: 'no' };
    const requested = {
      action: 'requested',
      since: '2026-11-30T10:00:00Z',
      workflow_run: null,
      environment: 'production',
      requestor: sender,
      reviewers: [],
      repository,
      sender,
    };
    for (const payload of [approved, rejected, requested]) expect(githubEventMismatch('deployment_review', payload), payload.action).to.equal(undefined);
    expect(githubEventMismatch('deployment_review', { action: 'approved', workflow_run: workflowRun, repository, sender })).to.equal(
      'X-GitHub-Event deployment_review does not match the payload: it has no since (a string)',
    );
  });

  it('tells a body seen again apart from a new event only for payloads of events that always change (an id, an update time), all of them checked events', () => {
    const unique = [
      'push',
      'pull_request',
      'pull_request_review_comment',
      'issues',
      'issue_comment',
      'workflow_run',
      'workflow_job',
      'check_suite',
      'status',
      'deployment',
      'deployment_status',
    ];
    for (const event of unique) expect(CHECKED_GITHUB_EVENTS, event).to.include(event);
    const wrong: string[] = [];
    let count = 0;
    for (const [host, sets] of EXAMPLES) {
      for (const { name, examples } of sets) {
        examples.forEach((payload, i) => {
          count++;
          if (githubBodyIsUnique(name, payload) !== unique.includes(name)) wrong.push(`${host} ${name} #${i}`);
        });
      }
    }
    expect(wrong).to.deep.equal([]);
    expect(count).to.be.greaterThan(329);
    // By the payload, whatever the unsigned header names (githubEventMismatch refuses those names first):
    // a captured push sent again as `Push` or `repository_dispatch` is still a push's payload.
    const push = { ref: 'refs/heads/main', before: '0'.repeat(40), after: 'a'.repeat(40), commits: [] };
    for (const event of ['push', 'Push', 'PUSH', 'repository_dispatch', 'a_future_event']) expect(githubBodyIsUnique(event, push), event).to.equal(true);
    const dispatch = { inputs: {}, ref: 'refs/heads/main', workflow: '.github/workflows/deploy.yml' };
    for (const event of ['workflow_dispatch', 'repository_dispatch', 'unknown']) expect(githubBodyIsUnique(event, dispatch), event).to.equal(false);
    for (const event of ['star', 'watch', 'check_run', 'release', 'pull_request_review_thread', 'ping', 'unknown', '__proto__'])
      expect(githubBodyIsUnique(event, {}), event).to.equal(false);
  });

  it("does not take a deployment_protection_rule payload (a deployment too, with the callback to answer) for a deployment's: not checked, and by delivery id only", () => {
    // GitHub's documented fields (none in @octokit/webhooks-examples): a protection rule asked about a deployment.
    const repository = { full_name: 'acme/app' };
    const deployment = { url: 'https://api.github.com/repos/acme/app/deployments/1', id: 1, sha: 'a'.repeat(40), ref: 'main', environment: 'production' };
    const protection: Record<string, unknown> = {
      action: 'requested',
      environment: 'production',
      event: 'push',
      deployment_callback_url: 'https://api.github.com/repos/acme/app/actions/runs/1/deployment_protection_rule',
      deployment,
      pull_requests: [],
      repository,
      installation: { id: 1, node_id: 'MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uMQ==' },
      sender: { login: 'octocat' },
    };
    expect(githubEventMismatch('deployment_protection_rule', protection)).to.equal(undefined);
    expect(githubBodyIsUnique('deployment_protection_rule', protection)).to.equal(false);
    // Each of its own fields (all optional in GitHub's schema) tells it from a deployment's payload.
    for (const field of ['deployment_callback_url', 'environment', 'event', 'pull_requests']) {
      const payload = { action: 'requested', deployment, [field]: protection[field], repository };
      expect(githubEventMismatch('deployment', payload), field).to.equal(
        `X-GitHub-Event deployment does not match the payload: it has a ${field}, which deployment payloads never have`,
      );
      expect(githubBodyIsUnique('deployment_protection_rule', payload), field).to.equal(false);
    }
  });

  it("passes any payload of an event whose payloads it does not know, but a checked event's", () => {
    for (const event of ['watch', 'label', 'unknown', 'a_future_event', '__proto__', 'constructor', 'toString']) {
      for (const payload of [{}, { ref: 'x' }, { zen: 'z' }, [], null, 'text'])
        expect(githubEventMismatch(event, payload), `${event} ${JSON.stringify(payload)}`).to.equal(undefined);
    }
  });

  it("refuses a checked event's payload sent as an event not checked, naming whose it is (a captured ping or workflow_dispatch sent again as watch), and passes every other event's examples under any unchecked name", () => {
    const checked = new Set(CHECKED_GITHUB_EVENTS);
    const wrong: string[] = [];
    let refused = 0;
    for (const [host, sets] of EXAMPLES) {
      for (const { name, examples } of sets) {
        examples.forEach((payload, i) => {
          for (const claimed of ['watch', 'repository_dispatch', name.toUpperCase(), 'a_future_event', '__proto__']) {
            if (claimed === name) continue;
            const expected = checked.has(name) ? `X-GitHub-Event ${claimed} does not match the payload: it is a payload of ${name}` : undefined;
            if (expected !== undefined) refused++;
            if (githubEventMismatch(claimed, payload) !== expected) wrong.push(`${host} ${name} #${i} as ${claimed}: ${githubEventMismatch(claimed, payload)}`);
          }
        });
      }
    }
    expect(wrong).to.deep.equal([]);
    expect(refused).to.be.greaterThan(329);
    const ping = { zen: 'Keep it logically awesome.', hook_id: 1, hook: { type: 'Repository', id: 1 }, repository: { full_name: 'acme/app' } };
    expect(githubEventMismatch('ping', ping)).to.equal(undefined);
    expect(githubEventMismatch('watch', ping)).to.equal('X-GitHub-Event watch does not match the payload: it is a payload of ping');
    const dispatch = { inputs: {}, ref: 'refs/heads/main', workflow: '.github/workflows/deploy.yml' };
    expect(githubEventMismatch('label', dispatch)).to.equal('X-GitHub-Event label does not match the payload: it is a payload of workflow_dispatch');
  });
});
