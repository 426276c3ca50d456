import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import { GithubEvents } from '../../../../src/adapters/codehost/github-events.js';
import { GithubSignatureVerifier } from '../../../../src/adapters/codehost/github-signature-verifier.js';
import { codehostAgentGuard, ReceiveCodehostEvent } from '../../../../src/application/codehost/receive-codehost-event.js';
import { FireTriggers, TRIGGER_RUN_QUEUE, type TriggerRunTask } from '../../../../src/application/triggers/fire-triggers.js';
import { RunTrigger } from '../../../../src/application/triggers/run-trigger.js';
import { triggerCatalog } from '../../../../src/container/trigger-catalog.js';
import { snapshotRequest } from '../../../../src/domain/templates/request-snapshot.js';
import { validateTriggers } from '../../../../src/domain/triggers/validate-triggers.js';
import type { HttpForwarder } from '../../../../src/ports/http-forwarder.js';
import type { JobLaunch } from '../../../../src/ports/job-launcher.js';
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

const SECRET = 'hook-secret';
const JOB = '4f1c2a3b-5d6e-4f70-8a9b-0c1d2e3f4a5b';
const REPO = 'acme/app';

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
  { name: 'on-webhook', watch_path: '/webhook', enabled: true, actions: [{ type: 'agent', job: 'Look at {{body.ref}}' }] },
];

const push = (branch: string, repository = REPO) => ({
  ref: `refs/heads/${branch}`,
  before: '0'.repeat(40),
  after: 'a'.repeat(40),
  commits: [],
  repository: { full_name: repository },
});
const pullRequest = (headRepository: string) => ({
  action: 'opened',
  number: 3,
  pull_request: {
    html_url: 'https://github.test/acme/app/pull/3',
    updated_at: '2026-12-01T00:00:00Z',
    head: { ref: `job/${JOB}`, sha: 'abc', repo: { full_name: headRepository } },
    base: { ref: 'main', repo: { full_name: REPO } },
  },
  repository: { full_name: REPO },
});

/**
 * Signed code-host deliveries through ReceiveCodehostEvent (GitHub's events, the jobs'
 * repository acme/app), the triggers they fire, and their runs run by RunTrigger with the
 * service's guard, a job launcher that records each job it is asked for, and a command shell.
 */
const setup = () => {
  const { triggers, problems } = validateTriggers(TRIGGERS, 'TRIGGERS.json', triggerCatalog());
  expect(problems).to.deep.equal([]);
  const queue = new InMemoryTaskQueue();
  const requests = new InMemoryInboundRequestStore();
  const logger = new RecordingLogger();
  const events = new GithubEvents({ repo: REPO, workflow: 'agent-job.yml' });
  const fire = new FireTriggers(triggers, requests, queue, new SequentialIds(), new FixedClock(), logger, new InMemoryTriggerLanes());
  const receive = new ReceiveCodehostEvent(
    new GithubSignatureVerifier(SECRET),
    new InMemoryDeliveryLog(),
    fire,
    events,
    new InMemoryJobRepository(),
    new FixedClock(),
    logger,
  );
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
    codehostAgentGuard(events),
  );
  let ran = 0;
  /** Runs the trigger runs queued since the last call. */
  const runQueued = async (): Promise<void> => {
    await fire.dispatched();
    const tasks = queue.tasks.filter((task) => task.queue === TRIGGER_RUN_QUEUE).slice(ran);
    ran += tasks.length;
    for (const task of tasks) await runner.execute(task.payload as TriggerRunTask);
  };
  let delivery = 0;
  /** A signed delivery of `event`; `withEventHeader: false` stores its request without the event header. */
  const send = async (event: string, payload: object, options: { withEventHeader?: boolean } = {}) => {
    const body = JSON.stringify(payload);
    const outcome = await receive.execute({
      rawBody: Buffer.from(body),
      signature: `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
      event,
      deliveryId: `delivery-${++delivery}`,
      watchPath: '/codehost/webhook',
      parseBody: () => JSON.parse(body),
      request: () => snapshotRequest(JSON.parse(body), {}, options.withEventHeader === false ? {} : { 'x-github-event': event }),
    });
    await runQueued();
    return outcome;
  };
  return { send, fire, runQueued, launches, commands, runs, logger, requests };
};

describe("code-host events of the gateway's own job branches and triggers' agent actions (no job feedback loop)", () => {
  it('a signed push to job/<id> fires the trigger, runs its command, and starts no job; a push to main starts one', async () => {
    const { send, launches, commands, runs, logger } = setup();
    expect((await send('push', push(`job/${JOB}`))).triggers).to.deep.equal(['on-code']);
    expect(launches).to.deep.equal([]);
    expect(commands).to.deep.equal(['true']);
    const agent = runs.runs.find((run) => run.type === 'agent');
    expect(agent).to.include({ status: 'not_runnable', attempts: 0 });
    expect(agent?.error).to.include(`job/${JOB}`).and.to.include('runs no agent action');
    const said = logger.entries.filter((entry) => entry.level === 'info' && entry.message.includes('run no agent action'));
    expect(said, 'one line for the event').to.have.length(1);
    expect(said[0].fields).to.include({ event: 'push', branch: `job/${JOB}` });

    await send('push', push('main'));
    expect(launches).to.have.length(1);
    expect(launches[0].source).to.deep.equal({ kind: 'trigger', name: 'on-code' });
  });

  it("starts no job for the job's own pull request, runs, check suites and check runs, nor its branch's creation", async () => {
    const { send, launches, runs } = setup();
    await send('create', { ref: `job/${JOB}`, ref_type: 'branch', master_branch: 'main', pusher_type: 'user', repository: { full_name: REPO } });
    await send('pull_request', pullRequest(REPO));
    await send('workflow_run', {
      action: 'completed',
      workflow_run: {
        id: 9,
        head_branch: `job/${JOB}`,
        conclusion: 'success',
        path: '.github/workflows/ci.yml',
        head_repository: { full_name: REPO },
        updated_at: '2026-12-01T00:00:00Z',
      },
      repository: { full_name: REPO },
    });
    await send('check_suite', { action: 'completed', check_suite: { id: 5, head_branch: `job/${JOB}`, updated_at: 'x' }, repository: { full_name: REPO } });
    await send('check_run', { action: 'completed', check_run: { id: 6, check_suite: { head_branch: `job/${JOB}` } }, repository: { full_name: REPO } });
    expect(launches).to.deep.equal([]);
    expect(runs.runs.filter((run) => run.type === 'agent').map((run) => run.status)).to.deep.equal(Array(5).fill('not_runnable'));
  });

  it("still starts a job for a fork's pull request from a branch named job/<id> (not the gateway's job: it fires as any pull request does)", async () => {
    const { send, launches } = setup();
    await send('pull_request', pullRequest('mallory/app'));
    expect(launches).to.have.length(1);
  });

  it('tells the event from its payload when the stored request has no event header', async () => {
    const { send, launches } = setup();
    await send('push', push(`job/${JOB}`), { withEventHeader: false });
    expect(launches).to.deep.equal([]);
  });

  it('starts no job for a replay of such an event either', async () => {
    const { send, fire, runQueued, launches, requests } = setup();
    await send('push', push(`job/${JOB}`));
    const [stored] = await requests.list({ limit: 10 });
    const replay = await fire.replay(stored.id);
    expect(replay.fired).to.deep.equal(['on-code']);
    await runQueued();
    expect(launches).to.deep.equal([]);
  });

  it('leaves other endpoints alone: a request to /webhook with the same body starts its job', async () => {
    const { fire, runQueued, launches } = setup();
    const body = push(`job/${JOB}`);
    await fire.execute({ watchPath: '/webhook', request: snapshotRequest(body, {}, { 'x-github-event': 'push' }) });
    await runQueued();
    expect(launches).to.have.length(1);
    expect(await codehostAgentGuard(new GithubEvents({ repo: REPO, workflow: 'agent-job.yml' }))('/webhook', snapshotRequest(body, {}, {}))).to.equal(
      undefined,
    );
  });
});
