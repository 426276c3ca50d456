import { expect } from 'chai';
import Koa from 'koa';
import { HttpServer } from '../../../src/adapters/http/http-server.js';

describe('HttpServer', () => {
  let server: HttpServer | undefined;
  afterEach(async () => {
    await server?.close(0);
    server = undefined;
  });

  it('holds the port from listen on, answering 503 "The service is starting" until the app is served', async () => {
    server = await HttpServer.listen(0, '127.0.0.1');
    const early = await fetch(`http://127.0.0.1:${server.port}/api/ping`);
    expect(early.status).to.equal(503);
    expect(early.headers.get('retry-after')).to.equal('1');
    expect(await early.json()).to.deep.equal({ error: 'The service is starting' });

    const app = new Koa();
    app.use((ctx) => {
      ctx.body = { message: 'Pong!' };
    });
    server.serve(app);
    const served = await fetch(`http://127.0.0.1:${server.port}/api/ping`);
    expect(served.status).to.equal(200);
    expect(await served.json()).to.deep.equal({ message: 'Pong!' });
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
