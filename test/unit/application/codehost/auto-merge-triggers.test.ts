import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import { GithubClient } from '../../../../src/adapters/codehost/github-client.js';
import { GithubEvents } from '../../../../src/adapters/codehost/github-events.js';
import { GithubPullRequests } from '../../../../src/adapters/codehost/github-pull-requests.js';
import { GithubSignatureVerifier } from '../../../../src/adapters/codehost/github-signature-verifier.js';
import { codehostAgentGuard, ReceiveCodehostEvent } from '../../../../src/application/codehost/receive-codehost-event.js';
import { AutoMergeJob } from '../../../../src/application/jobs/auto-merge-job.js';
import { FireTriggers, TRIGGER_RUN_QUEUE, type TriggerRunTask } from '../../../../src/application/triggers/fire-triggers.js';
import { RunTrigger } from '../../../../src/application/triggers/run-trigger.js';
import { triggerCatalog } from '../../../../src/container/trigger-catalog.js';
import { compileGlobs } from '../../../../src/domain/jobs/allowed-paths.js';
import type { Job } from '../../../../src/domain/jobs/job.js';
import { snapshotRequest } from '../../../../src/domain/templates/request-snapshot.js';
import { validateTriggers } from '../../../../src/domain/triggers/validate-triggers.js';
import type { HttpForwarder } from '../../../../src/ports/http-forwarder.js';
import type { JobLaunch } from '../../../../src/ports/job-launcher.js';
import type { PullRequests } from '../../../../src/ports/pull-requests.js';
import type { ShellExecutor, ShellRun } from '../../../../src/ports/shell-executor.js';
import { FixedClock } from '../../../fakes/fixed-clock.js';
import { InMemoryActionRunRepository } from '../../../fakes/in-memory-action-run-repository.js';
import { InMemoryDeliveryLog } from '../../../fakes/in-memory-delivery-log.js';
import { InMemoryInboundRequestStore } from '../../../fakes/in-memory-inbound-request-store.js';
import { InMemoryJobRepository } from '../../../fakes/in-memory-job-repository.js';
import { InMemoryTaskQueue } from '../../../fakes/in-memory-task-queue.js';
import { InMemoryTriggerLanes } from '../../../fakes/in-memory-trigger-lanes.js';
import { RecordingLogger } from '../../../fakes/recording-logger.js';
import { SequentialIds } from '../../../fakes/sequential-ids.js';
import { FAKE_GITHUB_TOKEN, type FakeGithub, mergeCommitOf, startFakeGithub } from '../../../support/fake-github.js';

const SECRET = 'hook-secret';
const JOB = '4f1c2a3b-5d6e-4f70-8a9b-0c1d2e3f4a5b';
const REPO = 'acme/app';
/** The job's head: the agent's commit on job/<id>, the head of its pull request #12. */
const HEAD = 'ab'.repeat(20);
const PULL = { number: 12, sha: HEAD };
/** The merge commit GitHub makes (the fake GitHub's answer to the merge). */
const MERGE = mergeCommitOf(PULL);
/** main before the merge. */
const BEFORE = 'c0ffee0000000000000000000000000000000000';

/** Every event of the repository starts a job (no `when`), and runs a command. */
const TRIGGERS = [
  {
    name: 'on-code',
    watch_path: '/codehost/webhook',
    enabled: true,
    actions: [
      { type: 'agent', job: 'Look at {{body.ref}}' },
      { type: 'command', command: 'true' },
    ],
  },
];

const succeededJob: Job = {
  id: JOB,
  job: 'Fix the docs',
  status: 'succeeded',
  source: { kind: 'trigger', name: 'on-code' },
  llmProvider: null,
  llmModel: null,
  branch: `job/${JOB}`,
  prUrl: null,
  runUrl: null,
  summary: `Handed over on job/${JOB}`,
  error: null,
  log: null,
  createdAt: new Date(0),
  updatedAt: new Date(0),
};

/** GitHub's push of a merge of pull request #12 into main: the job's commit and the merge commit. */
const mergePush = () => ({
  ref: 'refs/heads/main',
  before: BEFORE,
  after: MERGE,
  commits: [
    { id: HEAD, distinct: false, message: 'docs: fix' },
    { id: MERGE, distinct: true, message: `Merge pull request #12 from acme/job/${JOB}` },
  ],
  head_commit: { id: MERGE, message: `Merge pull request #12 from acme/job/${JOB}` },
  repository: { full_name: REPO },
});
const runOnMain = (sha: string) => ({
  action: 'requested',
  workflow_run: {
    id: 77,
    head_branch: 'main',
    head_sha: sha,
    path: '.github/workflows/ci.yml',
    head_repository: { full_name: REPO },
    updated_at: '2026-12-01T00:00:00Z',
  },
  repository: { full_name: REPO },
});
const checkSuiteOnMain = (sha: string) => ({
  action: 'completed',
  check_suite: { id: 78, head_branch: 'main', head_sha: sha, updated_at: '2026-12-01T00:00:00Z' },
  repository: { full_name: REPO },
});
const checkRunOnMain = (sha: string) => ({
  action: 'completed',
  check_run: { id: 79, head_sha: sha, check_suite: { head_branch: 'main', head_sha: sha } },
  repository: { full_name: REPO },
});

/**
 * AUTO_MERGE against the loopback fake GitHub (the job's pull request #12 into main, its files
 * allowed, its checks passed), and the signed code-host deliveries that come back through
 * ReceiveCodehostEvent, the triggers they fire, and their runs run by RunTrigger with the
 * service's guard over the same job repository.
 */
const setup = async (github: FakeGithub) => {
  github.pulls.set(PULL.number, {
    number: PULL.number,
    branch: `job/${JOB}`,
    sha: HEAD,
    files: ['docs/guide.md'],
    checkRuns: [{ name: 'ci', status: 'completed', conclusion: 'success' }],
    open: true,
    merged: false,
  });
  const { triggers, problems } = validateTriggers(TRIGGERS, 'TRIGGERS.json', triggerCatalog());
  expect(problems).to.deep.equal([]);
  const jobs = new InMemoryJobRepository();
  await jobs.add(succeededJob);
  const queue = new InMemoryTaskQueue();
  const requests = new InMemoryInboundRequestStore();
  const logger = new RecordingLogger();
  const events = new GithubEvents({ repo: REPO, workflow: 'agent-job.yml' });
  const fire = new FireTriggers(triggers, requests, queue, new SequentialIds(), new FixedClock(), logger, new InMemoryTriggerLanes());
  const receive = new ReceiveCodehostEvent(new GithubSignatureVerifier(SECRET), new InMemoryDeliveryLog(), fire, events, jobs, new FixedClock(), logger);
  const launches: JobLaunch[] = [];
  const commands: string[] = [];
  const shell: ShellExecutor = {
    run: async (command): Promise<ShellRun> => (commands.push(command), { exitCode: 0, timedOut: false, aborted: false, durationMs: 1, output: '' }),
  };
  const runs = new InMemoryActionRunRepository();
  const runner = new RunTrigger(
    triggers,
    runs,
    requests,
    shell,
    {} as HttpForwarder,
    { launch: async (launch) => (launches.push(launch), `job-${launches.length}`) },
    new SequentialIds(),
    new FixedClock(),
    logger,
    { triggersDir: '/srv/triggers', commandTimeoutMs: 1000, commandEnv: {} },
    undefined,
    undefined,
    undefined,
    undefined,
    codehostAgentGuard(events, jobs),
  );
  let ran = 0;
  const runQueued = async (): Promise<void> => {
    await fire.dispatched();
    const tasks = queue.tasks.filter((task) => task.queue === TRIGGER_RUN_QUEUE).slice(ran);
    ran += tasks.length;
    for (const task of tasks) await runner.execute(task.payload as TriggerRunTask);
  };
  let delivery = 0;
  const send = async (event: string, payload: object) => {
    const body = JSON.stringify(payload);
    const outcome = await receive.execute({
      rawBody: Buffer.from(body),
      signature: `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
      event,
      deliveryId: `delivery-${++delivery}`,
      watchPath: '/codehost/webhook',
      parseBody: () => JSON.parse(body),
      request: () => snapshotRequest(JSON.parse(body), {}, { 'x-github-event': event }),
    });
    await runQueued();
    return outcome;
  };
  const pullRequests = new GithubPullRequests(new GithubClient({ token: FAKE_GITHUB_TOKEN, repo: REPO, apiUrl: github.url }), REPO);
  const autoMerge = (prs: PullRequests = pullRequests) =>
    new AutoMergeJob(jobs, prs, { allowedPaths: ['docs/**'], globs: compileGlobs(['docs/**']) }, new FixedClock(), logger).execute({ jobId: JOB });
  const agentRuns = () => runs.runs.filter((run) => run.type === 'agent');
  return { send, fire, runQueued, autoMerge, pullRequests, launches, commands, agentRuns, logger, requests, jobs };
};

describe("code-host events of the gateway's own auto-merge of a job's pull request and triggers' agent actions (no job feedback loop)", () => {
  let github: FakeGithub;
  beforeEach(async () => {
    github = await startFakeGithub();
  });
  afterEach(async () => github.close());

  it('the push of the merge to main fires the trigger, runs its command, and starts no job; nor do the runs and checks on the merge commit; another push to main starts one', async () => {
    const { send, autoMerge, launches, commands, agentRuns, logger } = await setup(github);
    await autoMerge();
    expect(github.pulls.get(PULL.number)?.merged, 'merged by the gateway').to.equal(true);

    expect((await send('push', mergePush())).triggers).to.deep.equal(['on-code']);
    expect(launches).to.deep.equal([]);
    expect(commands).to.deep.equal(['true']);
    expect(agentRuns()[0]).to.include({ status: 'not_runnable', attempts: 0 });
    expect(agentRuns()[0]?.error).to.include(`merge of the pull request of job ${JOB}`).and.to.include('runs no agent action');
    const said = logger.entries.filter((entry) => entry.level === 'info' && entry.message.includes("own merge of a job's pull request"));
    expect(said, 'one line for the event').to.have.length(1);
    expect(said[0].fields).to.include({ event: 'push', jobId: JOB });

    await send('workflow_run', runOnMain(MERGE));
    await send('check_suite', checkSuiteOnMain(MERGE));
    await send('check_run', checkRunOnMain(MERGE));
    await send('status', {
      id: 80,
      sha: MERGE,
      state: 'success',
      context: 'ci',
      commit: { sha: MERGE, parents: [{ sha: BEFORE }, { sha: HEAD }] },
      branches: [{ name: 'main' }],
      repository: { full_name: REPO },
    });
    expect(launches).to.deep.equal([]);
    expect(agentRuns().map((run) => run.status)).to.deep.equal(Array(5).fill('not_runnable'));

    const next = 'de'.repeat(20);
    await send('push', { ...mergePush(), before: MERGE, after: next, commits: [{ id: next, distinct: true, message: 'by hand' }], head_commit: { id: next } });
    await send('workflow_run', runOnMain(next));
    expect(launches).to.have.length(2);
    expect(launches[0].source).to.deep.equal({ kind: 'trigger', name: 'on-code' });
  });

  it('starts no job when the push of the merge (and a run on the merge commit) come back before the merge call has answered', async () => {
    const { send, autoMerge, pullRequests, launches, agentRuns, jobs } = await setup(github);
    // GitHub delivers the push (and the runs it starts) while the gateway still waits for the answer to its merge call.
    const racing: PullRequests = {
      forBranch: (branch) => pullRequests.forBranch(branch),
      changedFiles: (base, sha) => pullRequests.changedFiles(base, sha),
      checks: (sha) => pullRequests.checks(sha),
      merge: async (number, sha) => {
        await send('push', mergePush());
        await send('check_suite', checkSuiteOnMain(MERGE));
        return pullRequests.merge(number, sha);
      },
    };
    await autoMerge(racing);
    expect(github.pulls.get(PULL.number)?.merged).to.equal(true);
    expect(launches).to.deep.equal([]);
    expect(agentRuns().map((run) => run.status)).to.deep.equal(['not_runnable', 'not_runnable']);
    expect(await jobs.jobOfMergeCommit([MERGE])).to.equal(JOB);
  });

  it('starts no job for a replay of the push of the merge either', async () => {
    const { send, fire, runQueued, autoMerge, launches, requests } = await setup(github);
    await autoMerge();
    await send('push', mergePush());
    const [stored] = await requests.list({ limit: 10 });
    expect((await fire.replay(stored.id)).fired).to.deep.equal(['on-code']);
    await runQueued();
    expect(launches).to.deep.equal([]);
  });

  it('a push to main bringing in commits of a job never auto-merged still starts a job (a merge by hand, or of another pull request)', async () => {
    const { send, launches } = await setup(github);
    await send('push', mergePush());
    expect(launches).to.have.length(1);
  });
});
