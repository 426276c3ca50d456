import { expect } from 'chai';
import { Agent, get, type IncomingMessage } from 'node:http';
import Koa from 'koa';
import { HttpServer } from '../../../src/adapters/http/http-server.js';
import { waitFor } from '../../support/http.js';
import { within } from '../../support/time-limit.js';

/** An app that answers each request with its path and counts what it ran. */
const countingApp = (): { app: Koa; ran: string[] } => {
  const ran: string[] = [];
  const app = new Koa();
  app.use((ctx) => {
    ran.push(ctx.path);
    ctx.body = { message: 'Pong!', path: ctx.path };
  });
  return { app, ran };
};

describe('HttpServer', () => {
  let server: HttpServer | undefined;
  afterEach(async () => {
    await server?.close(0);
    server = undefined;
  });

  it('holds the port from listen on; a request sent while starting waits and is answered by the app once it is served, in the order received', async () => {
    server = await HttpServer.listen(0, '127.0.0.1');
    const url = `http://127.0.0.1:${server.port}`;
    const first = fetch(`${url}/api/one`);
    await waitFor(() => server?.waiting === 1, 5000, 'the first request to wait');
    const second = fetch(`${url}/api/two`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    await waitFor(() => server?.waiting === 2, 5000, 'the second request to wait');

    const { app, ran } = countingApp();
    server.serve(app);
    const [one, two] = await Promise.all([first, second]);
    expect(one.status).to.equal(200);
    expect(await one.json()).to.deep.equal({ message: 'Pong!', path: '/api/one' });
    expect(two.status).to.equal(200);
    expect(ran).to.deep.equal(['/api/one', '/api/two']);
    expect(server.waiting).to.equal(0);
    const later = await fetch(`${url}/api/three`);
    expect(await later.json()).to.deep.equal({ message: 'Pong!', path: '/api/three' });
  });

  it('answers 503 "The service is starting" with Retry-After when the start takes longer than the wait, and never runs that request', async () => {
    server = await HttpServer.listen(0, '127.0.0.1', { waitMs: 50, max: 10 });
    const early = await fetch(`http://127.0.0.1:${server.port}/api/ping`);
    expect(early.status).to.equal(503);
    expect(early.headers.get('retry-after')).to.equal('1');
    expect(early.headers.get('x-request-id'), 'every answer has its request id').to.match(/^[0-9a-f-]{36}$/);
    expect(await early.json()).to.deep.equal({ error: 'The service is starting' });
    expect(server.waiting).to.equal(0);

    const { app, ran } = countingApp();
    server.serve(app);
    expect((await fetch(`http://127.0.0.1:${server.port}/api/ping`)).status).to.equal(200);
    expect(ran).to.deep.equal(['/api/ping']);
  });

  it('answers 503 at once beyond the most requests it holds, and still serves those it held', async () => {
    server = await HttpServer.listen(0, '127.0.0.1', { waitMs: 60_000, max: 1 });
    const url = `http://127.0.0.1:${server.port}`;
    const held = fetch(`${url}/api/held`);
    await waitFor(() => server?.waiting === 1, 5000, 'the first request to wait');
    const over = await fetch(`${url}/api/over`, { headers: { 'x-request-id': 'caller-id-1' } });
    expect(over.status).to.equal(503);
    expect(over.headers.get('x-request-id')).to.equal('caller-id-1');
    expect(await over.json()).to.deep.equal({ error: 'The service is starting' });

    const { app, ran } = countingApp();
    server.serve(app);
    expect((await held).status).to.equal(200);
    expect(ran).to.deep.equal(['/api/held']);
  });

  it('forgets a request whose caller hangs up while it waits: the app never runs it', async () => {
    server = await HttpServer.listen(0, '127.0.0.1');
    const url = `http://127.0.0.1:${server.port}`;
    const abort = new AbortController();
    const gaveUp = fetch(`${url}/api/gave-up`, { signal: abort.signal }).catch((error: unknown) => error);
    await waitFor(() => server?.waiting === 1, 5000, 'the request to wait');
    abort.abort();
    expect(await gaveUp).to.be.instanceOf(Error);
    await waitFor(() => server?.waiting === 0, 5000, 'the server to see the caller leave');

    const { app, ran } = countingApp();
    server.serve(app);
    expect((await fetch(`${url}/api/after`)).status).to.equal(200);
    expect(ran).to.deep.equal(['/api/after']);
  });

  it('answers 503 to the requests still waiting when it is closed before the app is served (a start that failed)', async () => {
    server = await HttpServer.listen(0, '127.0.0.1');
    const waiting = fetch(`http://127.0.0.1:${server.port}/api/ping`);
    await waitFor(() => server?.waiting === 1, 5000, 'the request to wait');
    await server.close(1000);
    server = undefined;
    const answer = await waiting;
    expect(answer.status).to.equal(503);
    expect(await answer.json()).to.deep.equal({ error: 'The service stopped before it was ready' });
  });

  it('ends a kept-alive connection once the answer it was giving when closed is out (Connection: close), instead of holding the close for the whole grace period', async () => {
    server = await HttpServer.listen(0, '127.0.0.1');
    let release: () => void = () => undefined;
    let entered: () => void = () => undefined;
    const started = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const app = new Koa();
    app.use(async (ctx) => {
      entered();
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      ctx.body = { ok: true };
    });
    server.serve(app);
    const agent = new Agent({ keepAlive: true });
    try {
      const answered = new Promise<IncomingMessage>((resolve, reject) => {
        get({ host: '127.0.0.1', port: server?.port, path: '/slow', agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(res));
        }).on('error', reject);
      });
      await started;
      // A grace period far beyond the test's limit: the close must end because the connection did.
      const closing = server.close(60_000);
      server = undefined;
      release();
      const res = await answered;
      expect(res.statusCode).to.equal(200);
      expect(res.headers.connection).to.equal('close');
      await within(10_000, 'the close, once the only answer under way was out', closing);
    } finally {
      agent.destroy();
    }
  });

  it('rejects with the listen error (code EADDRINUSE) when the port is taken', async () => {
    server = await HttpServer.listen(0, '127.0.0.1');
    const failure = await HttpServer.listen(server.port, '127.0.0.1').then(
      () => undefined,
      (error: unknown) => error as NodeJS.ErrnoException,
    );
    expect(failure?.code).to.equal('EADDRINUSE');
  });
});
