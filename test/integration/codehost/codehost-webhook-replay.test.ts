import { createHmac, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { startCodehostWebhookServer, type CodehostWebhookServer } from '../../support/codehost-webhook-server.js';
import { MikroOrmDeliveryLog } from '../../../src/adapters/persistence/mikro-orm-delivery-log.js';
import { triggerCatalog } from '../../../src/container/trigger-catalog.js';
import { validateTriggers } from '../../../src/domain/triggers/validate-triggers.js';
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
  let server: CodehostWebhookServer;
  let url: string;

  before(async () => {
    opened = await openTestDatabase('pglite', 'codehost-replay');
  });
  after(async () => opened?.close());

  beforeEach(async () => {
    await sql(opened.database, 'delete from codehost_deliveries');
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
    server = await startCodehostWebhookServer({ secret: SECRET, deliveries: new MikroOrmDeliveryLog(opened.database), triggers });
    url = server.url;
  });

  afterEach(async () => server.close());

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
    await server.dispatched();
    return server.queue.tasks.map((task) => (task.payload as { trigger: string }).trigger);
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

  it('runs a signed push once whatever X-GitHub-Event names when it comes again (another case, an unchecked event: 400), and refuses it without one (400)', async () => {
    expect(await deliver(push, 'push', randomUUID())).to.deep.equal({ status: 200, body: { ok: true, triggers: ['on-push'] } });
    // `watch`'s trigger would fire: a push's payload is no other event's.
    for (const event of ['watch', 'Push', 'repository_dispatch']) {
      expect(await deliver(push, event, randomUUID()), event).to.deep.equal({
        status: 400,
        body: { error: `X-GitHub-Event ${event} does not match the payload: it is a payload of push` },
      });
    }
    const unnamed = await fetch(`${url}/api/codehost/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-github-delivery': randomUUID(), 'x-hub-signature-256': sign(push) },
      body: push,
    });
    expect({ status: unnamed.status, body: await unnamed.json() }).to.deep.equal({ status: 400, body: { error: 'Missing X-GitHub-Event header' } });
    expect(await queued()).to.deep.equal(['on-push']);
  });

  it('refuses a captured ping, or any payload of a checked event, sent again as an event not checked (400), however often: it fires nothing', async () => {
    // Every webhook's Recent deliveries holds its ping; a ping is acknowledged, never recorded, and its body repeats.
    const ping = JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1, hook: { type: 'Repository', id: 1 }, repository: { full_name: 'acme/app' } });
    expect(await deliver(ping, 'ping', randomUUID())).to.deep.equal({ status: 200, body: { ok: true, triggers: [] } });
    const dispatch = JSON.stringify({ inputs: {}, ref: 'refs/heads/main', workflow: '.github/workflows/d.yml', repository: { full_name: 'acme/app' } });
    for (const [raw, theirs] of [
      [ping, 'ping'],
      [ping, 'ping'],
      [dispatch, 'workflow_dispatch'],
      [dispatch, 'workflow_dispatch'],
    ] as const) {
      for (const event of ['watch', 'label', 'Ping']) {
        expect(await deliver(raw, event, randomUUID()), `${theirs} as ${event}`).to.deep.equal({
          status: 400,
          body: { error: `X-GitHub-Event ${event} does not match the payload: it is a payload of ${theirs}` },
        });
      }
    }
    expect(await queued()).to.deep.equal([]);
    // A watch's own payload still fires watch's trigger.
    expect(await deliver(JSON.stringify({ action: 'started', repository: { full_name: 'acme/app' } }), 'watch', randomUUID())).to.deep.equal({
      status: 200,
      body: { ok: true, triggers: ['on-other'] },
    });
    expect(await queued()).to.deep.equal(['on-other']);
  });

  it("answers GitHub's own redelivery (same delivery id, same body) as a repeat, as before", async () => {
    const id = randomUUID();
    expect(await deliver(push, 'push', id)).to.deep.equal({ status: 200, body: { ok: true, triggers: ['on-push'] } });
    expect(await deliver(push, 'push', id)).to.deep.equal({ status: 200, body: { ok: true, triggers: [], duplicate: true } });
    expect(await queued()).to.deep.equal(['on-push']);
  });

  it('runs nothing for a delivery received more than 14 days ago sent again under its id, its stored request removed by retention while the delivery is remembered', async () => {
    const dispatch = JSON.stringify({ inputs: {}, ref: 'refs/heads/main', workflow: '.github/workflows/deploy.yml', repository: { full_name: 'acme/app' } });
    const [pushed, dispatched] = [randomUUID(), randomUUID()];
    expect((await deliver(push, 'push', pushed)).body).to.deep.equal({ ok: true, triggers: ['on-push'] });
    expect((await deliver(dispatch, 'workflow_dispatch', dispatched)).body).to.deep.equal({ ok: true, triggers: ['on-dispatch'] });
    expect(await queued()).to.deep.equal(['on-push', 'on-dispatch']);
    // RETENTION_DELIVERIES_DAYS=0 (or 60): the deliveries are remembered, their requests (kept 15 days at least) are gone.
    await sql(opened.database, "update codehost_deliveries set received_at = now() - interval '15 days'");
    server.requests.requests.clear();
    for (let i = 0; i < 2; i++) {
      expect(await deliver(push, 'push', pushed)).to.deep.equal({ status: 200, body: { ok: true, triggers: [], duplicate: true } });
      expect(await deliver(dispatch, 'workflow_dispatch', dispatched)).to.deep.equal({ status: 200, body: { ok: true, triggers: [], duplicate: true } });
    }
    expect(await queued()).to.deep.equal(['on-push', 'on-dispatch']);
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
