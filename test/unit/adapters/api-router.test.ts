import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { expect } from 'chai';
import Koa from 'koa';
import { NodeApiKeyCrypto } from '../../../src/adapters/crypto/node-api-key-crypto.js';
import { apiRouter } from '../../../src/adapters/http/api-router.js';
import { API_KEY_CHALLENGE, PLATFORM_SECRET_CHALLENGE } from '../../../src/adapters/http/auth-challenge.js';
import { requestLog } from '../../../src/adapters/http/middleware/request-log.js';
import { createPino } from '../../../src/adapters/logging/pino-logger.js';
import { rethrowAsFailedToCreateJob } from '../../../src/adapters/http/handlers.js';
import { AuthenticateApiKey } from '../../../src/application/auth/authenticate-api-key.js';
import { CreateApiKey } from '../../../src/application/auth/create-api-key.js';
import { FireTriggers } from '../../../src/application/triggers/fire-triggers.js';
import { triggerCatalog } from '../../../src/container/trigger-catalog.js';
import { apiRoutes } from '../../../src/domain/auth/route-policy.js';
import { DomainError } from '../../../src/domain/errors/domain-error.js';
import type { Trigger } from '../../../src/domain/triggers/trigger.js';
import { validateTriggers } from '../../../src/domain/triggers/validate-triggers.js';
import { FixedClock } from '../../fakes/fixed-clock.js';
import { InMemoryInboundRequestStore } from '../../fakes/in-memory-inbound-request-store.js';
import { InMemoryKeyRepository } from '../../fakes/in-memory-key-repository.js';
import { InMemoryTaskQueue } from '../../fakes/in-memory-task-queue.js';
import { InMemoryTriggerLanes } from '../../fakes/in-memory-trigger-lanes.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';
import { SequentialIds } from '../../fakes/sequential-ids.js';

/** A trigger on each of these watch paths, running `true`. */
const watching = (...paths: string[]): readonly Trigger[] => {
  const { triggers, problems } = validateTriggers(
    paths.map((path, index) => ({ name: `t${index}`, watch_path: path, enabled: true, actions: [{ type: 'command', command: 'true' }] })),
    'test',
    triggerCatalog(),
  );
  expect(problems).to.deep.equal([]);
  return triggers;
};

describe('the /api router (Koa on a loopback server)', () => {
  let server: Server;
  let url: string;
  let key: string;
  let live: readonly Trigger[];
  let requests: InMemoryInboundRequestStore;
  let keys: InMemoryKeyRepository;
  let keyId: string;
  /** Digests of keys computed so far (the counting crypto's). */
  let digests: number;

  beforeEach(async () => {
    live = [];
    requests = new InMemoryInboundRequestStore();
    const clock = new FixedClock();
    const logger = new RecordingLogger();
    keys = new InMemoryKeyRepository();
    const real = new NodeApiKeyCrypto();
    digests = 0;
    const crypto = Object.assign(Object.create(real) as NodeApiKeyCrypto, { digest: (value: string) => (digests++, real.digest(value)) });
    const created = await new CreateApiKey(keys, crypto, new SequentialIds(), clock).execute({ name: 'ci' });
    key = created.key;
    keyId = created.id;
    const fireTriggers = new FireTriggers(
      { current: () => live },
      requests,
      new InMemoryTaskQueue(),
      new SequentialIds(),
      clock,
      logger,
      new InMemoryTriggerLanes(),
    );
    const app = new Koa();
    app.silent = true;
    // The edge, as in the service: it answers every failure (error-responder).
    app.use(requestLog(createPino('silent')));
    app.use(
      apiRouter({
        routes: apiRoutes([{ id: 'telegram', registers: true }], 'telegram'),
        credentialHeaders: [],
        authenticate: new AuthenticateApiKey(keys, crypto, clock, logger),
        fireTriggers,
        handlers: {
          ping: (ctx) => {
            ctx.body = { message: 'Pong!', triggers: ctx.state.firedTriggers ?? [] };
          },
          webhook: (ctx) => {
            ctx.body = { ok: true, triggers: ctx.state.firedTriggers ?? [] };
          },
          'messaging-register:telegram': (ctx) => {
            ctx.body = { ok: true, triggers: ctx.state.firedTriggers ?? [] };
          },
          'messaging-register': (ctx) => {
            ctx.body = { ok: true, triggers: ctx.state.firedTriggers ?? [] };
          },
          'create-job': () => Promise.reject(new Error('connection terminated')).catch(rethrowAsFailedToCreateJob),
          // A platform's webhook whose signature, checked once the body is in, does not verify.
          'messaging-webhook:telegram': () => Promise.reject(new DomainError('unauthorized', 'Unauthorized')),
        },
        // A platform's webhook whose secret header is wrong: refused before its body is read.
        beforeBody: {
          'messaging-webhook': () => {
            throw new DomainError('unauthorized', 'Unauthorized');
          },
        },
        bodyLimit: 64 * 1024,
        failures: { 'create-job': rethrowAsFailedToCreateJob },
      }),
    );
    server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterEach(async () => new Promise<void>((resolve) => server.close(() => resolve())));

  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as { triggers?: string[] } };
  };

  it('fires a trigger added after the router was built (a reload) on an endpoint none watched before', async () => {
    expect((await post('/api/webhook', {})).body.triggers).to.deep.equal([]);
    live = watching('/webhook');
    expect(await post('/api/webhook', { a: 1 })).to.deep.equal({ status: 200, body: { ok: true, triggers: ['t0'] } });
    live = [];
    expect((await post('/api/webhook', {})).body.triggers).to.deep.equal([]);
  });

  it('fires no trigger for the public ping, even one that watches it (a file the validation did not check): anyone may call it', async () => {
    // Built by hand: validateTriggers refuses a watch_path on a public endpoint.
    live = [{ name: 'open', watchPath: '/ping', enabled: true, actions: [{ type: 'command', command: 'true' }] }];
    const response = await fetch(`${url}/api/ping?x=1`);
    expect(response.status).to.equal(200);
    expect(await response.json()).to.deep.equal({ message: 'Pong!', triggers: [] });
    expect(requests.requests.size, 'no request stored for a trigger').to.equal(0);
  });

  it('answers another method with 405 and an Allow header listing HEAD beside GET, which a GET endpoint also answers', async () => {
    const head = await fetch(`${url}/api/ping`, { method: 'HEAD' });
    expect(head.status, 'HEAD /api/ping').to.equal(200);
    for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS']) {
      const response = await fetch(`${url}/api/ping`, { method });
      expect(response.status, method).to.equal(405);
      expect(response.headers.get('allow'), method).to.equal('GET, HEAD');
      expect(await response.json()).to.deep.equal({ error: `Method ${method} is not allowed on /api/ping` });
    }
    const get = await fetch(`${url}/api/webhook`);
    expect(get.status).to.equal(405);
    expect(get.headers.get('allow'), 'a POST endpoint').to.equal('POST');
  });

  it("marks every /api answer Cache-Control: no-store, so that no cache in front keeps one for another caller: a key's answers, its refusals, the public ones", async () => {
    const answers = [
      await fetch(`${url}/api/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: '{}' }),
      await fetch(`${url}/api/webhook`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }),
      await fetch(`${url}/api/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: '{' }),
      await fetch(`${url}/api/ping`),
      await fetch(`${url}/api/nothing-here`),
    ];
    expect(answers.map((answer) => [answer.status, answer.headers.get('cache-control')])).to.deep.equal([
      [200, 'no-store'],
      [401, 'no-store'],
      [400, 'no-store'],
      [200, 'no-store'],
      [404, 'no-store'],
    ]);
  });

  it('names how to authenticate in every 401 (WWW-Authenticate, RFC 9110 11.6.1): the API key on its endpoints, the platform secret on a webhook; no other answer has one', async () => {
    const json = { 'content-type': 'application/json' };
    const refused = [
      await fetch(`${url}/api/webhook`, { method: 'POST', headers: json, body: '{}' }),
      await fetch(`${url}/api/webhook`, { method: 'POST', headers: { ...json, 'x-api-key': 'agw_not-a-key' }, body: '{}' }),
      await fetch(`${url}/api/create-job`, { method: 'POST', headers: { ...json, 'x-api-key': `${key}, ${key}` }, body: '{}' }),
      await fetch(`${url}/api/jobs/status`),
      await fetch(`${url}/api/messaging/register/`, { method: 'POST', headers: json, body: '{}' }),
    ];
    for (const answer of refused) {
      expect(answer.status, answer.url).to.equal(401);
      expect(answer.headers.get('www-authenticate'), answer.url).to.equal('ApiKey realm="agent-gateway", header="x-api-key"');
      expect(await answer.json(), answer.url).to.deep.equal({ error: 'Unauthorized' });
    }
    const platform = [
      // Refused by what its headers tell, before the body is read; refused once its body is in.
      await fetch(`${url}/api/messaging/webhook`, { method: 'POST', headers: json, body: '{}' }),
      await fetch(`${url}/api/messaging/telegram/webhook`, { method: 'POST', headers: { ...json, 'x-api-key': key }, body: '{}' }),
    ];
    for (const answer of platform) {
      expect(answer.status, answer.url).to.equal(401);
      expect(answer.headers.get('www-authenticate'), answer.url).to.equal('PlatformSecret realm="agent-gateway"');
    }
    expect([API_KEY_CHALLENGE, PLATFORM_SECRET_CHALLENGE]).to.deep.equal([
      'ApiKey realm="agent-gateway", header="x-api-key"',
      'PlatformSecret realm="agent-gateway"',
    ]);
    const others = [
      await fetch(`${url}/api/webhook`, { method: 'POST', headers: { ...json, 'x-api-key': key }, body: '{}' }),
      await fetch(`${url}/api/webhook`, { method: 'POST', headers: { ...json, 'x-api-key': key }, body: '{' }),
      await fetch(`${url}/api/ping`),
      await fetch(`${url}/api/nothing-here`),
      await fetch(`${url}/api/ping`, { method: 'POST' }),
    ];
    expect(others.map((answer) => [answer.status, answer.headers.get('www-authenticate')])).to.deep.equal([
      [200, null],
      [400, null],
      [200, null],
      [404, null],
      [405, null],
    ]);
  });

  it("keeps a registration's bot token out of what its triggers see and store, on both its paths", async () => {
    live = watching('/messaging/telegram/register');
    for (const path of ['/api/messaging/telegram/register', '/api/messaging/register']) {
      const answer = await post(path, { bot_token: '123456:SECRET-token', webhook_url: 'https://gw.example.com/api/messaging/telegram/webhook' });
      expect(answer.body.triggers, path).to.deep.equal(['t0']);
    }
    const stored = [...requests.requests.values()].map((request) => JSON.parse(request.request) as { body: unknown });
    expect(stored.map((request) => request.body)).to.deep.equal([
      { webhook_url: 'https://gw.example.com/api/messaging/telegram/webhook' },
      { webhook_url: 'https://gw.example.com/api/messaging/telegram/webhook' },
    ]);
    expect(JSON.stringify([...requests.requests.values()])).not.to.contain('SECRET-token');
  });

  it('answers create-job\'s internal failures with SPEC 7\'s "Failed to create job": in its handler, and in storing the request for a trigger before it', async () => {
    expect(await post('/api/create-job', { job: 'x' })).to.deep.equal({ status: 500, body: { error: 'Failed to create job' } });
    live = watching('/create-job');
    requests.failNext = true;
    expect(await post('/api/create-job', { job: 'x' })).to.deep.equal({ status: 500, body: { error: 'Failed to create job' } });
    // another route keeps the general text
    live = watching('/webhook');
    requests.failNext = true;
    expect(await post('/api/webhook', {})).to.deep.equal({ status: 500, body: { error: 'Internal server error' } });
  });

  it("computes the digest of a POST's key once: the check after its body reads the first check's record", async () => {
    live = watching('/webhook');
    await post('/api/webhook', {});
    const before = digests;
    expect(await post('/api/webhook', { a: 1 })).to.deep.equal({ status: 200, body: { ok: true, triggers: ['t0'] } });
    expect(digests - before).to.equal(1);
  });

  /**
   * A POST written by hand: its headers and the first `early` bytes of its body, then — once the
   * key passed its first check (its use recorded) — `between`, then the rest. Returns the status
   * line and body of the answer.
   */
  const postInTwoParts = (
    path: string,
    body: string,
    early: number,
    between: () => Promise<void>,
  ): Promise<{ status: number; body: string; challenge: string | undefined }> =>
    new Promise((resolve, reject) => {
      const socket = connect(Number(new URL(url).port), '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('error', reject);
      socket.on('close', () => {
        const [head, ...rest] = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n');
        resolve({
          status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0),
          body: rest.join('\r\n\r\n'),
          challenge: /\r\nwww-authenticate: ([^\r]*)/i.exec(head)?.[1],
        });
      });
      socket.write(
        `POST ${path} HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-type: application/json\r\nx-api-key: ${key}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, early)}`,
      );
      between().then(() => socket.end(body.slice(early)), reject);
    });

  it('refuses with 401 a request whose key was revoked while its body was arriving, and fires no trigger for it', async () => {
    live = watching('/webhook');
    const answer = await postInTwoParts('/api/webhook', '{"deploy":"main"}', 5, async () => {
      // The key passed its first check (which records its use) before it is revoked.
      while (keys.touches === 0) await new Promise((resolve) => setImmediate(resolve));
      expect(await keys.remove(keyId)).to.equal(true);
    });
    expect(answer).to.deep.equal({ status: 401, body: '{"error":"Unauthorized"}', challenge: 'ApiKey realm="agent-gateway", header="x-api-key"' });
    expect(requests.requests.size, 'no request stored for a trigger').to.equal(0);
  });

  it('still answers a request whose key stays valid while its body arrives in parts', async () => {
    live = watching('/webhook');
    const answer = await postInTwoParts('/api/webhook', '{"deploy":"main"}', 5, async () => {
      while (keys.touches === 0) await new Promise((resolve) => setImmediate(resolve));
    });
    expect(answer).to.deep.equal({ status: 200, body: '{"ok":true,"triggers":["t0"]}', challenge: undefined });
    expect(keys.touches, "the request's use is recorded once").to.equal(1);
  });
});
