import { createHmac, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { validateTriggers } from '../../../src/domain/triggers/validate-triggers.js';
import { triggerCatalog } from '../../../src/container/trigger-catalog.js';
import { InMemoryDeliveryLog } from '../../fakes/in-memory-delivery-log.js';
import { startCodehostWebhookServer, type CodehostWebhookServer } from '../../support/codehost-webhook-server.js';

const SECRET = 'form-delivery-secret';
const sign = (raw: string): string => `sha256=${createHmac('sha256', SECRET).update(raw).digest('hex')}`;
const FORM = 'application/x-www-form-urlencoded';

/** GitHub's form content type (the default of a webhook made through its REST API): `payload=<JSON>`, URL-encoded, signed as sent. */
const asForm = (json: string): string => new URLSearchParams({ payload: json }).toString();

/**
 * POST /api/codehost/webhook through the service's router and handler, with GitHub's other
 * content type: `application/x-www-form-urlencoded`, whose `payload` field holds the JSON. It
 * was refused with 415 `Content-Type must be application/json`, every delivery, ping included.
 */
describe("the code-host webhook with GitHub's form content type (payload=<JSON>)", function () {
  this.timeout(30_000);
  let server: CodehostWebhookServer;

  beforeEach(async () => {
    const { triggers } = validateTriggers(
      [
        {
          name: 'on-push',
          watch_path: '/codehost/webhook',
          enabled: true,
          when: { 'body.ref': { equals: 'refs/heads/main' } },
          actions: [{ type: 'command', command: 'true' }],
        },
      ],
      'test',
      triggerCatalog(),
    );
    server = await startCodehostWebhookServer({ secret: SECRET, deliveries: new InMemoryDeliveryLog(), triggers });
  });

  afterEach(async () => server.close());

  const deliver = async (raw: string, event: string, signature = sign(raw), type = FORM) => {
    const response = await fetch(`${server.url}/api/codehost/webhook`, {
      method: 'POST',
      headers: { 'content-type': type, 'x-github-event': event, 'x-github-delivery': randomUUID(), 'x-hub-signature-256': signature },
      body: raw,
    });
    return { status: response.status, body: (await response.json()) as unknown };
  };

  const push = JSON.stringify({
    ref: 'refs/heads/main',
    before: '0'.repeat(40),
    after: 'a'.repeat(40),
    commits: [{ message: 'a + b & c = 100%' }],
    repository: { full_name: 'acme/app' },
  });

  it('answers a signed ping and runs a signed push, whose triggers see the JSON payload as the body', async () => {
    expect(await deliver(asForm('{"zen":"Keep it logically awesome.","hook_id":1,"hook":{}}'), 'ping')).to.deep.equal({
      status: 200,
      body: { ok: true, triggers: [] },
    });
    expect(await deliver(asForm(push), 'push')).to.deep.equal({ status: 200, body: { ok: true, triggers: ['on-push'] } });
    await server.dispatched();
    const [stored] = [...server.requests.requests.values()];
    expect((JSON.parse(stored.request) as { body: unknown }).body).to.deep.equal(JSON.parse(push));
  });

  it('checks the signature over the form as sent: one over the JSON alone is refused (401), and so is an unsigned form whatever it holds', async () => {
    expect(await deliver(asForm(push), 'push', sign(push))).to.deep.equal({ status: 401, body: { error: 'Unauthorized' } });
    expect(await deliver('payload=%ff&x', 'push', `sha256=${'0'.repeat(64)}`)).to.deep.equal({ status: 401, body: { error: 'Unauthorized' } });
    expect(server.requests.requests.size).to.equal(0);
  });

  it('refuses a signed form without its payload field, with it twice, or whose payload is not JSON, with a 400 naming what is wrong', async () => {
    expect(await deliver('zen=hi', 'ping')).to.deep.equal({ status: 400, body: { error: 'Invalid form body: no field "payload" holding the JSON payload' } });
    expect(await deliver(`${asForm(push)}&${asForm(push)}`, 'push')).to.deep.equal({
      status: 400,
      body: { error: 'Invalid form body: the field "payload" is sent more than once' },
    });
    expect(await deliver(asForm('{"ref":'), 'push')).to.deep.equal({
      status: 400,
      body: { error: 'Invalid JSON body: unexpected end of the body at line 1 column 8' },
    });
    expect(await deliver(asForm('{"__proto__":{"x":1}}'), 'push')).to.deep.equal({
      status: 400,
      body: { error: 'Invalid JSON body: a "__proto__" key is not allowed' },
    });
    expect(server.requests.requests.size).to.equal(0);
  });

  it('refuses another content type with a 415 naming the two it takes', async () => {
    expect(await deliver(push, 'push', sign(push), 'text/plain')).to.deep.equal({
      status: 415,
      body: { error: 'Content-Type must be application/json or application/x-www-form-urlencoded' },
    });
    expect(await deliver(push, 'push', sign(push), 'application/json; charset=utf-8')).to.deep.equal({
      status: 200,
      body: { ok: true, triggers: ['on-push'] },
    });
  });
});
