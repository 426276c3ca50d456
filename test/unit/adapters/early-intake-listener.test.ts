import { expect } from 'chai';
import Koa from 'koa';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { NodeApiKeyCrypto } from '../../../src/adapters/crypto/node-api-key-crypto.js';
import { earlyIntakeListener } from '../../../src/adapters/http/early-intake-listener.js';
import { HttpServer } from '../../../src/adapters/http/http-server.js';
import { apiRouter } from '../../../src/adapters/http/api-router.js';
import { requestLog } from '../../../src/adapters/http/middleware/request-log.js';
import { AuthenticateApiKey } from '../../../src/application/auth/authenticate-api-key.js';
import type { FireTriggers } from '../../../src/application/triggers/fire-triggers.js';
import { apiRoutes } from '../../../src/domain/auth/route-policy.js';
import { InMemoryKeyRepository } from '../../fakes/in-memory-key-repository.js';
import { FileIntakeJournal } from '../../../src/adapters/intake/file-intake-journal.js';
import { EarlyIntake } from '../../../src/application/triggers/early-intake.js';
import { createPino } from '../../../src/adapters/logging/pino-logger.js';
import { triggerCatalog } from '../../../src/container/trigger-catalog.js';
import { validateTriggers } from '../../../src/domain/triggers/validate-triggers.js';
import { FixedClock } from '../../fakes/fixed-clock.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';
import { SequentialIds } from '../../fakes/sequential-ids.js';
import { earlyIntakeFor } from '../../support/early-intake.js';
import { waitFor } from '../../support/http.js';

const crypto = new NodeApiKeyCrypto();
const KEY = crypto.mint();
const { triggers } = validateTriggers(
  [{ name: 'run', watch_path: '/webhook', enabled: true, actions: [{ type: 'command', command: 'true' }] }],
  'TRIGGERS.json',
  triggerCatalog(),
);

/** Counts the requests `intake` admits, for a test to wait until one is taken in. */
const countAdmissions = (intake: ReturnType<typeof earlyIntakeFor>['intake']): { readonly count: number } => {
  const counted = { count: 0 };
  const admit = intake.admit.bind(intake);
  intake.admit = (presented, bodyBytes, headersBytes) => {
    const key = admit(presented, bodyBytes, headersBytes);
    if (key !== undefined) counted.count++;
    return key;
  };
  return counted;
};

describe('earlyIntakeListener on the starting server', () => {
  let http: HttpServer | undefined;
  afterEach(async () => {
    await http?.close(0);
    http = undefined;
  });

  const listenerFor = (intake: EarlyIntake, bodyLimit: number, observed: unknown[][], maxInFlight?: number) =>
    earlyIntakeListener({
      ...(maxInFlight === undefined ? {} : { maxInFlight }),
      intake,
      route: { name: 'webhook', path: '/api/webhook' },
      bodyLimit,
      credentialHeaders: ['x-telegram-bot-api-secret-token'],
      logger: createPino('silent'),
      observe: (...observation) => observed.push(observation),
    });

  const start = async (bodyLimit = 1000) => {
    const { intake, journal } = earlyIntakeFor(triggers, KEY);
    const observed: unknown[][] = [];
    const server = await HttpServer.listen(0, '127.0.0.1');
    http = server;
    server.takeEarly(listenerFor(intake, bodyLimit, observed));
    const url = `http://127.0.0.1:${server.port}/api/webhook`;
    const post = (body: string | Uint8Array, headers: Record<string, string> = {}) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': KEY, ...headers }, body });
    return { server, intake, journal, observed, post };
  };

  it("answers a request it takes with the app's answer, its request id and its count; keeps credential headers out of the stored request", async () => {
    const { journal, observed, post } = await start();
    const answer = await post('{"id": 7}', { 'x-request-id': 'caller-1', 'x-telegram-bot-api-secret-token': 'hush' });
    expect(answer.status).to.equal(200);
    expect(answer.headers.get('x-request-id')).to.equal('caller-1');
    expect(answer.headers.get('cache-control'), 'as every /api answer').to.equal('no-store');
    expect(await answer.json()).to.deep.equal({ ok: true, triggers: ['run'] });
    expect(journal.entries).to.have.length(1);
    const stored = journal.entries[0].request.request;
    expect(JSON.parse(stored).body).to.deep.equal({ id: 7 });
    expect(stored).not.to.include('hush');
    expect(stored).not.to.include(KEY);
    expect(observed).to.have.length(1);
    expect(observed[0].slice(0, 3)).to.deep.equal(['webhook', 'POST', 200]);
  });

  it('takes the requests that arrived before it was set up (the port is bound first), which would otherwise wait for the whole start', async () => {
    const server = await HttpServer.listen(0, '127.0.0.1');
    http = server;
    const answer = fetch(`http://127.0.0.1:${server.port}/api/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': KEY },
      body: '{"id": "first"}',
    });
    await waitFor(() => server.waiting === 1, 10_000, 'the request held');
    const { intake, journal } = earlyIntakeFor(triggers, KEY);
    server.takeEarly(listenerFor(intake, 1000, []));
    expect((await answer).status).to.equal(200);
    expect(server.waiting).to.equal(0);
    expect(journal.entries.map((entry) => JSON.parse(entry.request.request).body)).to.deep.equal([{ id: 'first' }]);
  });

  it('takes at most maxInFlight requests at once; one more is held, and taken again once one is done', async () => {
    const server = await HttpServer.listen(0, '127.0.0.1');
    http = server;
    const { intake, journal } = earlyIntakeFor(triggers, KEY);
    server.takeEarly(listenerFor(intake, 1000, [], 1));
    // The first one's body never comes whole: it stays in flight.
    const stuck = request({
      method: 'POST',
      host: '127.0.0.1',
      port: server.port,
      path: '/api/webhook',
      headers: { 'content-type': 'application/json', 'x-api-key': KEY, 'content-length': 9 },
    });
    stuck.on('error', () => undefined);
    stuck.flushHeaders();
    const admissions = countAdmissions(intake);
    await waitFor(() => admissions.count === 1, 5_000, 'the first request taken in');
    const second = fetch(`http://127.0.0.1:${server.port}/api/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': KEY },
      body: '{"id": 2}',
    });
    await waitFor(() => server.waiting === 1, 5_000, 'the second request held');
    expect(journal.entries).to.deep.equal([]);
    stuck.destroy();
    const third = await fetch(`http://127.0.0.1:${server.port}/api/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': KEY },
      body: '{"id": 3}',
    });
    expect(third.status).to.equal(200);
    await server.close(0);
    http = undefined;
    expect((await second).status).to.equal(503);
  });

  it('refuses, as the app does, a body that sets __proto__ or nests too deep, storing nothing', async () => {
    const { journal, post } = await start(100_000);
    const proto = await post('{"__proto__": {"x": 1}}');
    expect(proto.status).to.equal(400);
    const deep = await post(`${'['.repeat(100)}${']'.repeat(100)}`);
    expect(deep.status).to.equal(400);
    expect(((await deep.json()) as { error: string }).error).to.match(/nest/i);
    expect(journal.entries).to.deep.equal([]);
  });

  it('leaves to the app, untouched, what it does not take: compressed, chunked, over the limit, another type, another method or path', async () => {
    const { server, journal, post } = await start(50);
    const held = [
      post(gzipSync('{"id": 1}'), { 'content-encoding': 'gzip' }),
      // No Content-Length: the body comes chunked.
      fetch(`http://127.0.0.1:${server.port}/api/webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': KEY },
        body: new ReadableStream({ start: (c) => (c.enqueue(new TextEncoder().encode('{"id": 2}')), c.close()) }),
        duplex: 'half',
      } as RequestInit),
      post(JSON.stringify({ id: 'x'.repeat(100) })),
      post('{"id": 4}', { 'content-type': 'application/json; charset=utf-8' }),
      fetch(`http://127.0.0.1:${server.port}/api/webhook/`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': KEY }, body: '{}' }),
      fetch(`http://127.0.0.1:${server.port}/api/webhook`, { method: 'PUT', headers: { 'content-type': 'application/json', 'x-api-key': KEY }, body: '{}' }),
    ];
    await waitFor(() => server.waiting === held.length, 10_000, 'every request held');
    const app = new Koa();
    app.use(async (ctx) => {
      const chunks: Buffer[] = [];
      for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
      ctx.body = { app: true, bytes: Buffer.concat(chunks).length };
    });
    server.serve(app);
    const answers = await Promise.all(held);
    for (const answer of answers) expect(((await answer.json()) as { app?: boolean }).app).to.equal(true);
    expect(journal.entries).to.deep.equal([]);
  });

  it('never answers a 401 itself: a key the snapshot does not know (none, unknown, sent twice) waits for the app, whose 401 names the API key (WWW-Authenticate)', async () => {
    const { server, journal, post } = await start();
    const held = [post('{}', { 'x-api-key': '' }), post('{}', { 'x-api-key': crypto.mint() }), post('{}', { 'x-api-key': `${KEY}, ${KEY}` })];
    await waitFor(() => server.waiting === held.length, 10_000, 'every request held');
    const app = new Koa();
    app.use(requestLog(createPino('silent')));
    app.use(
      apiRouter({
        routes: apiRoutes([]),
        credentialHeaders: [],
        authenticate: new AuthenticateApiKey(new InMemoryKeyRepository(), crypto, new FixedClock(), new RecordingLogger()),
        fireTriggers: {} as FireTriggers,
        handlers: {},
        bodyLimit: 1000,
      }),
    );
    server.serve(app);
    for (const answer of await Promise.all(held)) {
      expect(answer.status).to.equal(401);
      expect(answer.headers.get('www-authenticate')).to.equal('ApiKey realm="agent-gateway", header="x-api-key"');
      expect(await answer.json()).to.deep.equal({ error: 'Unauthorized' });
    }
    expect(journal.entries).to.deep.equal([]);
  });

  it('answers 503 with Retry-After, storing nothing, when the journal cannot keep the request or the app took over while its body arrived', async () => {
    const { intake, journal, post } = await start();
    const admissions = countAdmissions(intake);
    journal.failNext = new Error('disk full');
    const failed = await post('{"id": 1}');
    expect(failed.status).to.equal(503);
    expect(failed.headers.get('retry-after')).to.equal('1');
    expect(await failed.json()).to.deep.equal({ error: 'The service is starting' });
    // Admitted on its headers, its body still to come when the intake stops.
    const slow = request({
      method: 'POST',
      host: '127.0.0.1',
      port: (http as HttpServer).port,
      path: '/api/webhook',
      headers: { 'content-type': 'application/json', 'x-api-key': KEY, 'content-length': 9 },
    });
    const status = new Promise<number | undefined>((resolve, reject) => {
      slow.once('response', (response) => {
        response.resume();
        resolve(response.statusCode);
      });
      slow.once('error', reject);
    });
    slow.flushHeaders();
    await waitFor(() => admissions.count === 2, 5_000, 'the slow request admitted');
    await intake.stop();
    slow.end('{"id": 2}');
    expect(await status).to.equal(503);
    expect(journal.entries).to.deep.equal([]);
  });

  it('takes in only what its journal keeps, however the body grows when written again (1e20: 21 digits): the rest waits for the app, none is answered 503', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agw-early-room-'));
    try {
      const journal = new FileIntakeJournal(join(dir, 'journal.jsonl'), 400_000);
      await journal.open();
      let runIds = 0;
      const intake = new EarlyIntake(
        triggers,
        ['/webhook'],
        new Map([[crypto.digest(KEY), 'key-1']]),
        crypto,
        journal,
        new SequentialIds(),
        () => `71000000-0000-7000-8000-${String(++runIds).padStart(12, '0')}`,
        new FixedClock(new Date('2026-12-01T00:00:00Z')),
        new RecordingLogger(),
      );
      const observed: unknown[][] = [];
      const server = await HttpServer.listen(0, '127.0.0.1');
      http = server;
      server.takeEarly(listenerFor(intake, 1_000_000, observed));
      const post = (body: string) =>
        fetch(`http://127.0.0.1:${server.port}/api/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': KEY }, body });
      const numbers = (count: number) => `[${Array.from({ length: count }, () => '1e20').join(',')}]`;
      // 100 KB of body, 440 KB in the journal's line: more than the journal holds.
      const large = post(numbers(20_000));
      await waitFor(() => server.waiting === 1, 10_000, 'the large request held for the app');
      // 50 KB of body, 220 KB in the line: taken in.
      const small = await post(numbers(10_000));
      expect(small.status).to.equal(200);
      expect((await journal.read()).entries).to.have.length(1);
      server.serve(new Koa().use((ctx) => void ((ctx.status = 202), (ctx.body = { app: true }))));
      expect((await large).status).to.equal(202);
      expect(observed.map((observation) => observation[2])).to.deep.equal([200]);
      await journal.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
