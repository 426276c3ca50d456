import { createHmac, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import Koa from 'koa';
import { GithubEvents } from '../../../src/adapters/codehost/github-events.js';
import { GithubSignatureVerifier } from '../../../src/adapters/codehost/github-signature-verifier.js';
import { NodeApiKeyCrypto } from '../../../src/adapters/crypto/node-api-key-crypto.js';
import { apiRouter } from '../../../src/adapters/http/api-router.js';
import { apiChecksBeforeBody, apiHandlers, type HandlerDependencies } from '../../../src/adapters/http/handlers.js';
import { requestLog } from '../../../src/adapters/http/middleware/request-log.js';
import { createPino } from '../../../src/adapters/logging/pino-logger.js';
import { MikroOrmDeliveryLog } from '../../../src/adapters/persistence/mikro-orm-delivery-log.js';
import { AuthenticateApiKey } from '../../../src/application/auth/authenticate-api-key.js';
import { ReceiveCodehostEvent } from '../../../src/application/codehost/receive-codehost-event.js';
import { FireTriggers } from '../../../src/application/triggers/fire-triggers.js';
import { triggerCatalog } from '../../../src/container/trigger-catalog.js';
import { apiRoutes } from '../../../src/domain/auth/route-policy.js';
import { validateTriggers } from '../../../src/domain/triggers/validate-triggers.js';
import { FixedClock } from '../../fakes/fixed-clock.js';
import { InMemoryInboundRequestStore } from '../../fakes/in-memory-inbound-request-store.js';
import { InMemoryJobRepository } from '../../fakes/in-memory-job-repository.js';
import { InMemoryKeyRepository } from '../../fakes/in-memory-key-repository.js';
import { InMemoryTaskQueue } from '../../fakes/in-memory-task-queue.js';
import { InMemoryTriggerLanes } from '../../fakes/in-memory-trigger-lanes.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';
import { SequentialIds } from '../../fakes/sequential-ids.js';
import { openTestDatabase, sql, type TestDatabase } from '../../support/databases.js';

const SECRET = 'replay-test-secret';
const sign = (raw: string): string => `sha256=${createHmac('sha256', SECRET).update(raw).digest('hex')}`;

/**
 * POST /api/codehost/webhook through the service's router and handler, deliveries recorded in
 * the PGlite database: the signature covers the body only, so the delivery id, the event name and
 * the query string of a captured delivery can be changed at will.
 */
describe('the code-host webhook against replays of a captured delivery (router, handler, PGlite delivery log)', function () {
  this.timeout(60_000);
  let opened: TestDatabase;
  let server: Server;
  let url: string;
  let queue: InMemoryTaskQueue;
  let fire: FireTriggers;

  before(async () => {
    opened = await openTestDatabase('pglite', 'codehost-replay');
  });
  after(async () => opened?.close());

  beforeEach(async () => {
    await sql(opened.database, 'delete from codehost_deliveries');
    const clock = new FixedClock();
    const logger = new RecordingLogger();
    const { triggers } = validateTriggers(
      [
        {
          name: 'on-push',
          watch_path: '/codehost/webhook',
          enabled: true,
          when: { 'headers.x-github-event': { equals: 'push' } },
          actions: [{ type: 'command', command: 'true' }],
        },
        {
          name: 'on-issue',
          watch_path: '/codehost/webhook',
          enabled: true,
          when: { 'headers.x-github-event': { equals: 'issues' } },
          actions: [{ type: 'command', command: 'true' }],
        },
        {
          name: 'on-dispatch',
          watch_path: '/codehost/webhook',
          enabled: true,
          when: { 'headers.x-github-event': { equals: 'workflow_dispatch' } },
          actions: [{ type: 'command', command: 'true' }],
        },
        {
          name: 'on-other',
          watch_path: '/codehost/webhook',
          enabled: true,
          when: { 'headers.x-github-event': { equals: 'watch' } },
          actions: [{ type: 'command', command: 'true' }],
        },
      ],
      'test',
      triggerCatalog(),
    );
    queue = new InMemoryTaskQueue();
    fire = new FireTriggers(
      { current: () => triggers },
      new InMemoryInboundRequestStore(),
      queue,
      new SequentialIds(),
      clock,
      logger,
      new InMemoryTriggerLanes(),
    );
    const routes = apiRoutes([]);
    const deps = {
      routes,
      credentialHeaders: [],
      receiveCodehostEvent: new ReceiveCodehostEvent(
        new GithubSignatureVerifier(SECRET),
        new MikroOrmDeliveryLog(opened.database),
        fire,
        new GithubEvents(),
        new InMemoryJobRepository(),
        clock,
        logger,
      ),
    } as unknown as HandlerDependencies;
    const keys = new InMemoryKeyRepository();
    const app = new Koa();
    app.silent = true;
    app.use(requestLog(createPino('silent')));
    app.use(
      apiRouter({
        routes,
        credentialHeaders: [],
        authenticate: new AuthenticateApiKey(keys, new NodeApiKeyCrypto(), clock, logger),
        fireTriggers: fire,
        handlers: { 'codehost-webhook': apiHandlers(deps)['codehost-webhook'] },
        beforeBody: { 'codehost-webhook': apiChecksBeforeBody(deps)['codehost-webhook'] },
        bodyLimit: 64 * 1024,
      }),
    );
    server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterEach(async () => new Promise<void>((resolve) => server.close(() => resolve())));

  /** Sends the captured body with its signature under the headers given. */
  const deliver = async (raw: string, event: string, deliveryId: string, query = '') => {
    const response = await fetch(`${url}/api/codehost/webhook${query}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-github-event': event, 'x-github-delivery': deliveryId, 'x-hub-signature-256': sign(raw) },
      body: raw,
    });
    return { status: response.status, body: (await response.json()) as unknown };
  };
  /** The triggers whose runs were queued, once every fired request is dispatched. */
  const queued = async (): Promise<string[]> => {
    await fire.dispatched();
    return queue.tasks.map((task) => (task.payload as { trigger: string }).trigger);
  };

  const push = JSON.stringify({
    ref: 'refs/heads/main',
    before: '0'.repeat(40),
    after: 'a'.repeat(40),
    commits: [],
    head_commit: null,
    repository: { full_name: 'acme/app' },
  });

  it('runs a signed body once: sent again under fresh delivery ids (and another query string) it is a repeat, answered 200 and run no more', async () => {
    expect(await deliver(push, 'push', randomUUID())).to.deep.equal({ status: 200, body: { ok: true, triggers: ['on-push'] } });
    for (const query of ['', '', '?replay=1']) {
      expect(await deliver(push, 'push', randomUUID(), query)).to.deep.equal({ status: 200, body: { ok: true, triggers: [], duplicate: true } });
    }
    expect(await queued()).to.deep.equal(['on-push']);
  });

  it("answers GitHub's own redelivery (same delivery id, same body) as a repeat, as before", async () => {
    const id = randomUUID();
    expect(await deliver(push, 'push', id)).to.deep.equal({ status: 200, body: { ok: true, triggers: ['on-push'] } });
    expect(await deliver(push, 'push', id)).to.deep.equal({ status: 200, body: { ok: true, triggers: [], duplicate: true } });
    expect(await queued()).to.deep.equal(['on-push']);
  });

  it('refuses a signed body sent as another known event with 400 naming the mismatch, running nothing and keeping the body unrecorded', async () => {
    const issue = JSON.stringify({ action: 'opened', issue: { number: 1, title: 'x' }, repository: { full_name: 'acme/app' } });
    expect(await deliver(push, 'issues', randomUUID())).to.deep.equal({
      status: 400,
      body: { error: 'X-GitHub-Event issues does not match the payload: it has no issue (an object)' },
    });
    expect(await deliver(issue, 'push', randomUUID())).to.deep.equal({
      status: 400,
      body: { error: 'X-GitHub-Event push does not match the payload: it has no ref (a string)' },
    });
    const comment = JSON.stringify({ action: 'created', issue: { number: 1 }, comment: { id: 2, body: 'hi' }, repository: { full_name: 'acme/app' } });
    expect(await deliver(comment, 'issues', randomUUID())).to.deep.equal({
      status: 400,
      body: { error: 'X-GitHub-Event issues does not match the payload: it is a payload of issue_comment' },
    });
    // Sent as what they are, each runs (the refusals recorded nothing).
    expect((await deliver(push, 'push', randomUUID())).body).to.deep.equal({ ok: true, triggers: ['on-push'] });
    expect((await deliver(issue, 'issues', randomUUID())).body).to.deep.equal({ ok: true, triggers: ['on-issue'] });
    expect(await queued()).to.deep.equal(['on-push', 'on-issue']);
  });

  it('runs each delivery of an event whose payloads can repeat byte for byte (workflow_dispatch run twice with the same inputs), once per delivery id', async () => {
    // A workflow_dispatch payload has no per-event id or time: the same run asked for twice is the same bytes.
    const dispatch = JSON.stringify({
      inputs: { environment: 'staging' },
      ref: 'refs/heads/main',
      workflow: '.github/workflows/deploy.yml',
      repository: { full_name: 'acme/app' },
      sender: { login: 'octocat' },
    });
    const first = randomUUID();
    expect(await deliver(dispatch, 'workflow_dispatch', first)).to.deep.equal({ status: 200, body: { ok: true, triggers: ['on-dispatch'] } });
    expect(await deliver(dispatch, 'workflow_dispatch', randomUUID())).to.deep.equal({ status: 200, body: { ok: true, triggers: ['on-dispatch'] } });
    // GitHub's redelivery (the same id) still runs nothing.
    expect(await deliver(dispatch, 'workflow_dispatch', first)).to.deep.equal({ status: 200, body: { ok: true, triggers: [], duplicate: true } });
    expect(await queued()).to.deep.equal(['on-dispatch', 'on-dispatch']);
  });

  it('keeps an event whose payloads it does not know as before: any body passes, once per delivery id', async () => {
    const starred = JSON.stringify({ action: 'started', repository: { full_name: 'acme/app' } });
    const id = randomUUID();
    expect(await deliver(starred, 'watch', id)).to.deep.equal({ status: 200, body: { ok: true, triggers: ['on-other'] } });
    expect((await deliver(starred, 'watch', id)).body).to.deep.equal({ ok: true, triggers: [], duplicate: true });
    expect(await deliver(starred, 'watch', randomUUID())).to.deep.equal({ status: 200, body: { ok: true, triggers: ['on-other'] } });
    expect(await queued()).to.deep.equal(['on-other', 'on-other']);
  });
});
