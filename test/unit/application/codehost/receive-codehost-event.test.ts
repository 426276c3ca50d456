import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import { FireTriggers } from '../../../../src/application/triggers/fire-triggers.js';
import { ReceiveCodehostEvent } from '../../../../src/application/codehost/receive-codehost-event.js';
import { GithubEvents } from '../../../../src/adapters/codehost/github-events.js';
import { GithubSignatureVerifier } from '../../../../src/adapters/codehost/github-signature-verifier.js';
import { InMemoryJobRepository } from '../../../fakes/in-memory-job-repository.js';
import { DomainError } from '../../../../src/domain/errors/domain-error.js';
import { snapshotRequest } from '../../../../src/domain/templates/request-snapshot.js';
import { validateTriggers } from '../../../../src/domain/triggers/validate-triggers.js';
import { InMemoryDeliveryLog } from '../../../fakes/in-memory-delivery-log.js';
import { FixedClock } from '../../../fakes/fixed-clock.js';
import { InMemoryTaskQueue, InMemoryTaskStore } from '../../../fakes/in-memory-task-queue.js';
import { RecordingLogger } from '../../../fakes/recording-logger.js';
import { SequentialIds } from '../../../fakes/sequential-ids.js';
import { InMemoryInboundRequestStore } from '../../../fakes/in-memory-inbound-request-store.js';
import { triggerCatalog } from '../../../../src/container/trigger-catalog.js';
import { AUTO_MERGE_QUEUE, RequestAutoMerge } from '../../../../src/application/jobs/auto-merge-job.js';
import { InMemoryTriggerLanes } from '../../../fakes/in-memory-trigger-lanes.js';

describe('GithubSignatureVerifier', () => {
  it("accepts GitHub's published test vector", () => {
    const verifier = new GithubSignatureVerifier("It's a Secret to Everybody");
    expect(verifier.verify(Buffer.from('Hello, World!'), 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17')).to.equal(true);
  });

  it('refuses a wrong, truncated, unprefixed or missing signature, and everything when no secret is set', () => {
    const verifier = new GithubSignatureVerifier('s3cret');
    const body = Buffer.from('{"a":1}');
    const good = `sha256=${createHmac('sha256', 's3cret').update(body).digest('hex')}`;
    expect(verifier.verify(body, good)).to.equal(true);
    for (const bad of [good.replace(/.$/, '0'), good.slice(0, -2), good.slice(7), undefined, '', 'sha1=abc']) {
      expect(verifier.verify(body, bad), String(bad)).to.equal(false);
    }
    expect(verifier.verify(Buffer.from('{"a":2}'), good)).to.equal(false);
    expect(new GithubSignatureVerifier(undefined).verify(body, good)).to.equal(false);
  });

  it('tells from the header alone when no body could verify: missing, malformed, or no secret configured', () => {
    const good = `sha256=${'ab'.repeat(32)}`;
    expect(new GithubSignatureVerifier('s3cret').couldVerify(good)).to.equal(true);
    for (const bad of [undefined, '', 'sha256=00', `sha1=${'ab'.repeat(20)}`, `${good}0`, good.toUpperCase(), `sha256=${'zz'.repeat(32)}`]) {
      expect(new GithubSignatureVerifier('s3cret').couldVerify(bad), String(bad)).to.equal(false);
    }
    expect(new GithubSignatureVerifier(undefined).couldVerify(good)).to.equal(false);
    expect(new GithubSignatureVerifier('').couldVerify(good)).to.equal(false);
  });
});

describe('ReceiveCodehostEvent', () => {
  const secret = 'hook-secret';
  const { triggers } = validateTriggers(
    [{ name: 'on-push', watch_path: '/codehost/webhook', enabled: true, actions: [{ type: 'command', command: 'true' }] }],
    'test',
    triggerCatalog(),
  );
  const setup = () => {
    const queue = new InMemoryTaskQueue();
    const deliveries = new InMemoryDeliveryLog();
    const requests = new InMemoryInboundRequestStore();
    const fire = new FireTriggers(triggers, requests, queue, new SequentialIds(), new FixedClock(), new RecordingLogger(), new InMemoryTriggerLanes());
    const receive = new ReceiveCodehostEvent(
      new GithubSignatureVerifier(secret),
      deliveries,
      fire,
      new GithubEvents(),
      new InMemoryJobRepository(),
      new FixedClock(),
      new RecordingLogger(),
    );
    return { queue, deliveries, receive, requests, fire };
  };
  const delivery = (event: string, id: string | undefined, body = '{"ref":"refs/heads/main","commits":[]}', signWith = secret) => ({
    rawBody: Buffer.from(body),
    signature: `sha256=${createHmac('sha256', signWith).update(body).digest('hex')}`,
    event,
    deliveryId: id,
    watchPath: '/codehost/webhook',
    parseBody: () => JSON.parse(body),
    request: () => snapshotRequest(JSON.parse(body), {}, {}),
  });

  it('fires the triggers of a verified event', async () => {
    const { receive, queue, fire } = setup();
    expect(await receive.execute(delivery('push', 'd-1'))).to.deep.equal({ ok: true, triggers: ['on-push'] });
    await fire.dispatched();
    expect(queue.tasks).to.have.length(1);
  });

  it('refuses a forged signature before anything runs, its body never parsed', async () => {
    const { receive, queue, deliveries } = setup();
    let parsed = 0;
    const forged = delivery('push', 'd-1', undefined, 'guess');
    const error = await receive
      .execute({
        ...forged,
        parseBody: () => {
          parsed++;
          return forged.parseBody();
        },
      })
      .catch((e: DomainError) => e);
    expect(error).to.be.instanceOf(DomainError);
    expect((error as DomainError).code).to.equal('unauthorized');
    expect(parsed).to.equal(0);
    expect(queue.tasks).to.deep.equal([]);
    expect(deliveries.seen.size).to.equal(0);
  });

  it("answers a verified delivery whose body cannot be taken with the parser's 400, before its delivery id is looked at, running nothing", async () => {
    const { receive, queue, deliveries } = setup();
    const parseBody = () => {
      throw new DomainError('invalid_input', 'Invalid JSON body');
    };
    for (const id of ['d-9', undefined]) {
      const error = await receive.execute({ ...delivery('push', id, '{"ref":'), parseBody }).catch((e: DomainError) => e);
      expect(error).to.include({ code: 'invalid_input', message: 'Invalid JSON body' });
    }
    expect(queue.tasks).to.deep.equal([]);
    expect(deliveries.seen.size).to.equal(0);
  });

  it('acknowledges ping without firing', async () => {
    const { receive, queue, fire } = setup();
    expect(await receive.execute(delivery('ping', 'd-2', '{"zen":"Keep it simple.","hook_id":1,"hook":{}}'))).to.deep.equal({ ok: true, triggers: [] });
    await fire.dispatched();
    expect(queue.tasks).to.deep.equal([]);
  });

  it('acknowledges a redelivery without running it twice', async () => {
    const { receive, queue, fire } = setup();
    await receive.execute(delivery('push', 'd-3'));
    expect(await receive.execute(delivery('push', 'd-3'))).to.deep.equal({ ok: true, triggers: [], duplicate: true });
    await fire.dispatched();
    expect(queue.tasks).to.have.length(1);
  });

  it('runs a redelivery of a delivery recorded just before a stop (its work never stored), once', async () => {
    const { receive, queue, fire, deliveries } = setup();
    await deliveries.recordFirst('d-4', 'push');
    expect(await receive.execute(delivery('push', 'd-4'))).to.deep.equal({ ok: true, triggers: [], duplicate: true });
    expect(await receive.execute(delivery('push', 'd-4'))).to.deep.equal({ ok: true, triggers: [], duplicate: true });
    await fire.dispatched();
    expect(queue.tasks.map((task) => (task.payload as { trigger: string }).trigger)).to.deep.equal(['on-push']);
  });

  it('runs nothing for a delivery received more than 14 days ago sent again, its stored request gone (retention), however long deliveries are remembered; within 14 days its work is redone as before', async () => {
    const { receive, queue, fire, deliveries, requests } = setup();
    const day = 86_400_000;
    const push = JSON.stringify({ ref: 'refs/heads/main', before: '0'.repeat(40), after: 'b'.repeat(40), commits: [], repository: { full_name: 'acme/app' } });
    const dispatch = JSON.stringify({ inputs: {}, ref: 'refs/heads/main', workflow: '.github/workflows/deploy.yml', repository: { full_name: 'acme/app' } });
    expect(await receive.execute(delivery('push', 'old-1', push))).to.deep.equal({ ok: true, triggers: ['on-push'] });
    expect(await receive.execute(delivery('workflow_dispatch', 'old-2', dispatch))).to.deep.equal({ ok: true, triggers: ['on-push'] });
    await fire.dispatched();
    expect(queue.tasks).to.have.length(2);
    // 15 days on, the requests were removed (they are kept 15 days at least), the deliveries still remembered.
    requests.requests.clear();
    deliveries.backdate('old-1', new Date(Date.now() - 15 * day));
    deliveries.backdate('old-2', new Date(Date.now() - 15 * day));
    for (let i = 0; i < 3; i++) {
      expect(await receive.execute(delivery('push', 'old-1', push))).to.deep.equal({ ok: true, triggers: [], duplicate: true });
      expect(await receive.execute(delivery('workflow_dispatch', 'old-2', dispatch))).to.deep.equal({ ok: true, triggers: [], duplicate: true });
    }
    await fire.dispatched();
    expect(queue.tasks).to.have.length(2);
    expect(requests.requests.size).to.equal(0);
    // Recorded 13 days ago, then a stop before its work: GitHub's redelivery (of its last 3 days, at most) stores it, once.
    await deliveries.recordFirst('recent', 'push');
    deliveries.backdate('recent', new Date(Date.now() - 13 * day));
    expect(await receive.execute(delivery('push', 'recent'))).to.deep.equal({ ok: true, triggers: [], duplicate: true });
    await fire.dispatched();
    expect(queue.tasks).to.have.length(3);
  });

  it('refuses a verified delivery without X-GitHub-Delivery with 400 (ping too), running nothing', async () => {
    const { receive, queue, deliveries } = setup();
    for (const [event, id] of [
      ['push', undefined],
      ['push', ''],
      ['push', '  '],
      ['ping', undefined],
    ] as const) {
      const error = await receive.execute(delivery(event, id)).catch((e: DomainError) => e);
      expect(error, `${event} ${String(id)}`).to.be.instanceOf(DomainError);
      expect(error).to.include({ code: 'invalid_input', message: 'Missing X-GitHub-Delivery header' });
    }
    expect(queue.tasks).to.deep.equal([]);
    expect(deliveries.seen.size).to.equal(0);
  });

  it('refuses a verified delivery without X-GitHub-Event with 400 (GitHub always names it), running nothing; unsigned, it is 401', async () => {
    const { receive, queue, deliveries } = setup();
    for (const event of [undefined, '', '  ']) {
      const error = await receive.execute({ ...delivery('push', 'd-1'), event }).catch((e: DomainError) => e);
      expect(error, String(event)).to.include({ code: 'invalid_input', message: 'Missing X-GitHub-Event header' });
    }
    const unsigned = await receive.execute({ ...delivery('push', 'd-1'), event: undefined, signature: undefined }).catch((e: DomainError) => e);
    expect(unsigned).to.include({ code: 'unauthorized' });
    expect(queue.tasks).to.deep.equal([]);
    expect(deliveries.seen.size).to.equal(0);
    // Named, it runs: nothing was recorded.
    expect(await receive.execute(delivery('push', 'd-1'))).to.deep.equal({ ok: true, triggers: ['on-push'] });
  });

  it("runs a captured push body once, whatever X-GitHub-Event names when it is sent again under new delivery ids (another name: 400); GitHub's redelivery stays a duplicate", async () => {
    const { receive, queue, fire } = setup();
    const push = JSON.stringify({ ref: 'refs/heads/main', before: '0'.repeat(40), after: 'a'.repeat(40), commits: [], repository: { full_name: 'acme/app' } });
    expect(await receive.execute(delivery('push', 'b-1', push))).to.deep.equal({ ok: true, triggers: ['on-push'] });
    for (const [event, id] of [
      ['Push', 'b-3'],
      ['PUSH', 'b-4'],
      ['repository_dispatch', 'b-5'],
      ['a_future_event', 'b-6'],
    ] as const) {
      const error = await receive.execute(delivery(event, id, push)).catch((e: DomainError) => e);
      expect(error, `${event} ${id}`).to.include({
        code: 'invalid_input',
        message: `X-GitHub-Event ${event} does not match the payload: it is a payload of push`,
      });
    }
    expect(await receive.execute(delivery('push', 'b-7', push))).to.deep.equal({ ok: true, triggers: [], duplicate: true });
    expect(await receive.execute(delivery('push', 'b-1', push))).to.deep.equal({ ok: true, triggers: [], duplicate: true });
    await fire.dispatched();
    expect(queue.tasks).to.have.length(1);
  });

  it('runs each delivery id of a payload that can repeat byte for byte (workflow_dispatch twice with the same inputs), as before', async () => {
    const { receive, queue, fire } = setup();
    const dispatch = JSON.stringify({ inputs: {}, ref: 'refs/heads/main', workflow: '.github/workflows/deploy.yml', repository: { full_name: 'acme/app' } });
    expect(await receive.execute(delivery('workflow_dispatch', 'w-1', dispatch))).to.deep.equal({ ok: true, triggers: ['on-push'] });
    expect(await receive.execute(delivery('workflow_dispatch', 'w-2', dispatch))).to.deep.equal({ ok: true, triggers: ['on-push'] });
    expect(await receive.execute(delivery('workflow_dispatch', 'w-2', dispatch))).to.deep.equal({ ok: true, triggers: [], duplicate: true });
    await fire.dispatched();
    expect(queue.tasks).to.have.length(2);
  });

  it('checks the signature before the delivery id: an unsigned request without one is 401', async () => {
    const { receive } = setup();
    const error = await receive.execute({ ...delivery('push', undefined), signature: undefined }).catch((e: DomainError) => e);
    expect(error).to.include({ code: 'unauthorized' });
  });

  it('refuses an over-long delivery id or event name with 400 instead of failing to record it', async () => {
    const { receive, queue } = setup();
    const longId = await receive.execute(delivery('push', 'd'.repeat(201))).catch((e: DomainError) => e);
    expect(longId).to.include({ code: 'invalid_input', message: 'Invalid X-GitHub-Delivery header: longer than 200 characters' });
    const longEvent = await receive.execute(delivery('e'.repeat(101), 'd-9')).catch((e: DomainError) => e);
    expect(longEvent).to.include({ code: 'invalid_input', message: 'Invalid X-GitHub-Event header: longer than 100 characters' });
    expect(queue.tasks).to.deep.equal([]);
  });

  it('#authorize refuses, before any body, a missing or malformed signature header, and everything without a secret', () => {
    const { receive } = setup();
    const wellFormed = `sha256=${'0'.repeat(64)}`;
    expect(() => receive.authorize(wellFormed, 'push')).not.to.throw();
    for (const bad of [undefined, '', 'sha256=00', 'garbage']) {
      expect(() => receive.authorize(bad, 'push'), String(bad))
        .to.throw(DomainError)
        .with.property('code', 'unauthorized');
    }
    const unconfigured = new ReceiveCodehostEvent(
      new GithubSignatureVerifier(undefined),
      new InMemoryDeliveryLog(),
      new FireTriggers(
        [],
        new InMemoryInboundRequestStore(),
        new InMemoryTaskQueue(),
        new SequentialIds(),
        new FixedClock(),
        new RecordingLogger(),
        new InMemoryTriggerLanes(),
      ),
      new GithubEvents(),
      new InMemoryJobRepository(),
      new FixedClock(),
      new RecordingLogger(),
    );
    expect(() => unconfigured.authorize(wellFormed, 'push'))
      .to.throw(DomainError)
      .with.property('code', 'unauthorized');
  });

  it('forgets the delivery when it cannot be stored, so a redelivery is accepted', async () => {
    const { receive, requests } = setup();
    requests.failNext = true;
    await receive.execute(delivery('push', 'd-4')).catch(() => undefined);
    expect(await receive.execute(delivery('push', 'd-4'))).to.deep.equal({ ok: true, triggers: ['on-push'] });
  });

  it('keeps a stored delivery whose run cannot be queued yet: it stays stored, undispatched, and a redelivery is a duplicate', async () => {
    const { receive, requests, queue, fire } = setup();
    queue.failNext = true;
    expect(await receive.execute(delivery('push', 'd-5'))).to.deep.equal({ ok: true, triggers: ['on-push'] });
    await fire.dispatched();
    expect(await requests.undispatched(new Date(8.64e15), 10)).to.have.length(1);
    expect((await receive.execute(delivery('push', 'd-5'))).duplicate).to.equal(true);
  });
});

describe('code-host events for jobs', () => {
  const secret = 'hook-secret';
  const JOB = '50000000-0000-4000-8000-000000000001';
  /** `repo`: the jobs' repository as CODEHOST_REPO gives it (unset: none configured). */
  const setup = async (repo?: string) => {
    const jobs = new InMemoryJobRepository();
    const clock = new FixedClock();
    await jobs.add({
      id: JOB,
      job: 'x',
      status: 'running',
      source: { kind: 'api' },
      llmProvider: null,
      llmModel: null,
      branch: `job/${JOB}`,
      prUrl: null,
      runUrl: null,
      summary: null,
      error: null,
      log: null,
      createdAt: clock.now(),
      updatedAt: clock.now(),
    });
    /** What the after-update hook (auto-merge) was called with. */
    const updated: string[] = [];
    const fire = new FireTriggers(
      [],
      new InMemoryInboundRequestStore(),
      new InMemoryTaskQueue(),
      new SequentialIds(),
      clock,
      new RecordingLogger(),
      new InMemoryTriggerLanes(),
    );
    const receive = new ReceiveCodehostEvent(
      new GithubSignatureVerifier(secret),
      new InMemoryDeliveryLog(),
      fire,
      new GithubEvents(repo === undefined ? undefined : { repo, workflow: 'agent-job.yml' }),
      jobs,
      clock,
      new RecordingLogger(),
      async (job) => void updated.push(`${job.id} ${job.status}`),
    );
    let n = 0;
    const send = (event: string, payload: object) => {
      const body = JSON.stringify(payload);
      n++;
      return receive.execute({
        rawBody: Buffer.from(body),
        signature: `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
        event,
        deliveryId: `delivery-${n}`,
        watchPath: '/codehost/webhook',
        parseBody: () => payload,
        request: () => snapshotRequest(payload, {}, {}),
      });
    };
    return { jobs, send, updated };
  };
  /** GitHub's events name their repository, and a run or pull request the repository of its branch (a fork's own). */
  const run = (
    action: string,
    conclusion: string | null,
    branch = `job/${JOB}`,
    repository = 'acme/app',
    headRepository = repository,
    workflow = '.github/workflows/agent-job.yml',
  ) => ({
    action,
    workflow_run: {
      id: 9,
      html_url: 'https://github.test/runs/9',
      head_branch: branch,
      head_sha: 'abc',
      status: action === 'completed' ? 'completed' : 'in_progress',
      conclusion,
      head_repository: { full_name: headRepository },
      path: workflow,
    },
    repository: { full_name: repository },
  });
  const pullRequest = (url: string, repository = 'acme/app', headRepository = repository) => ({
    action: 'opened',
    number: 3,
    pull_request: {
      html_url: url,
      merged: false,
      head: { ref: `job/${JOB}`, sha: 'abc', repo: { full_name: headRepository } },
      base: { ref: 'main', repo: { full_name: repository } },
    },
    repository: { full_name: repository },
  });
  const pr = pullRequest('https://github.test/pull/3');

  it('records the run URL, the pull request and the outcome of the job of a job/<id> branch', async () => {
    const { jobs, send } = await setup();
    expect((await send('workflow_run', run('in_progress', null))).job).to.equal(JOB);
    await send('pull_request', pr);
    await send('workflow_run', run('completed', 'success'));
    expect(await jobs.get(JOB)).to.include({ status: 'succeeded', runUrl: 'https://github.test/runs/9', prUrl: 'https://github.test/pull/3' });
  });

  it('hands each job an event updated, as stored afterwards, to the after-update hook (auto-merge), late events on a finished job included', async () => {
    const { send, updated } = await setup();
    await send('workflow_run', run('in_progress', null));
    await send('workflow_run', run('completed', 'success'));
    await send('pull_request', pr);
    await send('workflow_run', run('completed', 'success', 'feature/x'));
    expect(updated).to.deep.equal([`${JOB} running`, `${JOB} succeeded`, `${JOB} succeeded`]);
  });

  it('queues one auto-merge attempt per delivery however often it is redelivered, and one for a delivery recorded just before a stop', async () => {
    const { jobs } = await setup();
    const store = new InMemoryTaskStore();
    const queue = new InMemoryTaskQueue(store);
    const deliveries = new InMemoryDeliveryLog();
    const autoMerge = new RequestAutoMerge(queue);
    const receive = new ReceiveCodehostEvent(
      new GithubSignatureVerifier(secret),
      deliveries,
      new FireTriggers([], new InMemoryInboundRequestStore(), queue, new SequentialIds(), new FixedClock(), new RecordingLogger(), new InMemoryTriggerLanes()),
      new GithubEvents(),
      jobs,
      new FixedClock(),
      new RecordingLogger(),
      (job, cause) => autoMerge.execute(job, cause),
    );
    const deliver = (id: string, payload: object) => {
      const body = JSON.stringify(payload);
      return receive.execute({
        rawBody: Buffer.from(body),
        signature: `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
        event: 'workflow_run',
        deliveryId: id,
        watchPath: '/codehost/webhook',
        parseBody: () => payload,
        request: () => snapshotRequest(payload, {}, {}),
      });
    };
    const attempts = () => queue.tasks.filter((task) => task.queue === AUTO_MERGE_QUEUE).length;
    const completed = run('completed', 'success');
    expect((await deliver('d-1', completed)).job).to.equal(JOB);
    for (let i = 0; i < 50; i++) expect(await deliver('d-1', completed)).to.deep.equal({ ok: true, triggers: [], duplicate: true });
    expect(attempts()).to.equal(1);
    // Recorded, then a stop before its work: its redelivery queues the attempt the first never did, once.
    const later = { ...completed, workflow_run: { ...completed.workflow_run, run_attempt: 2 } };
    await deliveries.recordDelivery('d-2', 'workflow_run', Buffer.from(JSON.stringify(later)));
    for (let i = 0; i < 3; i++) expect((await deliver('d-2', later)).duplicate).to.equal(true);
    expect(attempts()).to.equal(2);
    // Its attempt's key gone with the finished task (RETENTION_FINISHED_TASKS_DAYS), a delivery sent again queues one more
    // attempt (harmless: it judges the pull request as it is then), and none once the delivery is 14 days old.
    store.keys.clear();
    expect((await deliver('d-1', completed)).duplicate).to.equal(true);
    expect(attempts()).to.equal(3);
    store.keys.clear();
    deliveries.backdate('d-1', new Date(Date.now() - 15 * 86_400_000));
    expect(await deliver('d-1', completed)).to.deep.equal({ ok: true, triggers: [], duplicate: true });
    expect(attempts()).to.equal(3);
  });

  it('keeps a finished job finished when events arrive late or again', async () => {
    const { jobs, send } = await setup();
    await send('workflow_run', run('completed', 'failure'));
    await send('workflow_run', run('in_progress', null));
    await send('workflow_run', run('completed', 'success'));
    await send('pull_request', pr);
    expect(await jobs.get(JOB)).to.include({ status: 'failed', prUrl: 'https://github.test/pull/3' });
  });

  it('maps a cancelled run to a cancelled job', async () => {
    const a = await setup();
    await a.send('workflow_run', run('completed', 'cancelled'));
    expect((await a.jobs.get(JOB))?.status).to.equal('cancelled');
  });

  it("leaves a job alone for the runs of the repository's other workflows (its CI) and for check suites, which name no workflow", async () => {
    const { jobs, send, updated } = await setup('acme/app');
    // The gateway's first commit starts the repository's CI too: its outcome is not the job's.
    expect((await send('workflow_run', run('completed', 'success', `job/${JOB}`, 'acme/app', 'acme/app', '.github/workflows/ci.yml'))).job).to.equal(undefined);
    // A completed suite changes nothing of the job; it is only news for auto-merge (the after-update hook).
    await send('check_suite', {
      action: 'completed',
      check_suite: { head_branch: `job/${JOB}`, head_sha: 'abc', status: 'completed', conclusion: 'success' },
      repository: { full_name: 'acme/app' },
    });
    expect(updated).to.deep.equal([`${JOB} running`]);
    expect(await jobs.get(JOB)).to.include({ status: 'running', runUrl: null });
    // The agent's own workflow, as CODEHOST_WORKFLOW names it, still does.
    expect((await send('workflow_run', run('completed', 'failure'))).job).to.equal(JOB);
    expect((await jobs.get(JOB))?.status).to.equal('failed');
  });

  it('leaves jobs alone for other branches and events', async () => {
    const { jobs, send } = await setup();
    expect((await send('workflow_run', run('completed', 'success', 'main'))).job).to.equal(undefined);
    await send('push', { ref: `refs/heads/job/${JOB}`, commits: [] });
    expect((await jobs.get(JOB))?.status).to.equal('running');
  });

  it("leaves a job alone for a fork's branch of the same name: its pull request, its runs", async () => {
    const { jobs, send } = await setup('acme/app');
    // GitHub signs a fork's pull request and its runs in the base repository with that repository's secret.
    expect((await send('pull_request', pullRequest('https://github.test/pull/66', 'acme/app', 'mallory/app'))).job).to.equal(undefined);
    expect((await send('workflow_run', run('completed', 'failure', `job/${JOB}`, 'acme/app', 'mallory/app'))).job).to.equal(undefined);
    expect((await send('workflow_run', run('completed', 'success', `job/${JOB}`, 'acme/app', 'mallory/app'))).job).to.equal(undefined);
    expect(await jobs.get(JOB)).to.include({ status: 'running', prUrl: null, runUrl: null });
  });

  it("keeps a job's pull request link and outcome when a stranger opens one from a fork's job/<id> branch into any base branch", async () => {
    const { jobs, send } = await setup('Acme/App');
    await send('pull_request', pr);
    await send('workflow_run', run('completed', 'success'));
    const before = await jobs.get(JOB);
    expect(before).to.include({ status: 'succeeded', prUrl: 'https://github.test/pull/3' });
    const stranger = pullRequest('https://github.test/pull/66', 'acme/app', 'Mallory/app');
    for (const base of ['main', 'release']) {
      const opened = { ...stranger, pull_request: { ...stranger.pull_request, base: { ref: base, repo: { full_name: 'acme/app' } } } };
      expect((await send('pull_request', opened)).job).to.equal(undefined);
      expect((await send('pull_request', { ...opened, action: 'synchronize' })).job).to.equal(undefined);
    }
    expect((await send('workflow_run', run('completed', 'failure', `job/${JOB}`, 'acme/app', 'mallory/app'))).job).to.equal(undefined);
    expect(await jobs.get(JOB)).to.deep.equal(before);
  });

  it("leaves a job alone for another repository whose webhook shares the secret (an organisation's), and for an event naming no repository", async () => {
    const { jobs, send } = await setup('acme/app');
    expect((await send('pull_request', pullRequest('https://github.test/other/pull/1', 'acme/other'))).job).to.equal(undefined);
    expect((await send('workflow_run', run('completed', 'failure', `job/${JOB}`, 'acme/other'))).job).to.equal(undefined);
    expect(
      (
        await send('check_suite', {
          action: 'completed',
          check_suite: { head_branch: `job/${JOB}`, status: 'completed', conclusion: 'failure' },
          repository: { full_name: 'acme/other' },
        })
      ).job,
    ).to.equal(undefined);
    const { repository: _none, ...anonymous } = run('completed', 'failure');
    expect((await send('workflow_run', anonymous)).job).to.equal(undefined);
    expect(await jobs.get(JOB)).to.include({ status: 'running', prUrl: null });
    // The configured repository's own events still count, its name in any case.
    expect((await send('pull_request', pullRequest('https://github.test/pull/3', 'Acme/App'))).job).to.equal(JOB);
  });
});
