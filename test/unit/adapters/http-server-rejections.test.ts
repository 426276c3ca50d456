import { expect } from 'chai';
import Koa from 'koa';
import { connect } from 'node:net';
import pino from 'pino';
import { HttpServer } from '../../../src/adapters/http/http-server.js';
import { jsonBody } from '../../../src/adapters/http/middleware/json-body.js';
import { rejectionLog, requestLog } from '../../../src/adapters/http/middleware/request-log.js';
import { waitFor } from '../../support/http.js';
import { sendRaw } from '../../support/raw-http.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TIMED_OUT = 'Request timed out (headers or body not received in time)';

describe('HttpServer: requests Node refuses', () => {
  let server: HttpServer;
  let lines: Array<Record<string, unknown>>;
  let counted: Array<[string, string, number]>;

  beforeEach(async () => {
    lines = [];
    counted = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const observe = (route: string, method: string, status: number) => void counted.push([route, method, status]);
    // A body must arrive within a second here (REQUEST_TIMEOUT_MS; 60 s by default).
    server = await HttpServer.listen(0, '127.0.0.1', undefined, { headersMs: 1000, requestMs: 1000 });
    const app = new Koa();
    app.use(requestLog(logger, observe));
    // As the API's key check does, before any body is read.
    app.use((ctx, next) => {
      if (ctx.path === '/api/create-job' && ctx.get('authorization') === '') {
        ctx.status = 401;
        ctx.body = { error: 'Unauthorized' };
        return;
      }
      return next();
    });
    app.use(jsonBody(1024 * 1024));
    app.use((ctx) => {
      ctx.body = { message: 'Pong!', body: ctx.request.body as unknown };
    });
    server.serve(app, rejectionLog(logger, observe));
  });
  afterEach(() => server.close(0));

  /** The app still answers a normal request after a refused one. */
  const stillServes = async (): Promise<void> => {
    const res = await fetch(`http://127.0.0.1:${server.port}/api/ping`);
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({ message: 'Pong!' });
  };

  const cases: Array<{ what: string; bytes: string; status: number; error: string; code: string }> = [
    {
      what: 'a control character in a header value',
      bytes: 'GET /api/ping HTTP/1.1\r\nHost: x\r\nX-Foo: a\x01b\r\n\r\n',
      status: 400,
      error: 'Invalid header',
      code: 'HPE_INVALID_HEADER_TOKEN',
    },
    {
      what: 'headers over 16 KB',
      bytes: `GET /api/ping HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17_000)}\r\n\r\n`,
      status: 431,
      error: 'Request headers too large',
      code: 'HPE_HEADER_OVERFLOW',
    },
    {
      what: 'a 70 000-character URL',
      bytes: `GET /${'a'.repeat(70_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      status: 431,
      error: 'Request headers too large',
      code: 'HPE_HEADER_OVERFLOW',
    },
    { what: 'an unknown method', bytes: 'FOO /api/ping HTTP/1.1\r\nHost: x\r\n\r\n', status: 400, error: 'Unknown HTTP method', code: 'HPE_INVALID_METHOD' },
    {
      what: 'both Transfer-Encoding and Content-Length',
      bytes: 'POST /api/ping HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n',
      status: 400,
      error: 'Malformed request body framing',
      code: 'HPE_INVALID_CONTENT_LENGTH',
    },
    {
      what: 'two different Content-Lengths',
      bytes: 'POST /api/ping HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd',
      status: 400,
      error: 'Malformed request body framing',
      code: 'HPE_UNEXPECTED_CONTENT_LENGTH',
    },
    {
      what: 'HTTP/1.1 without Host',
      bytes: 'GET /api/ping HTTP/1.1\r\n\r\n',
      status: 400,
      error: 'Missing Host header (required by HTTP/1.1)',
      code: 'MISSING_HOST',
    },
    {
      what: 'an Expect other than 100-continue',
      bytes: 'GET /api/ping HTTP/1.1\r\nHost: x\r\nExpect: bogus\r\n\r\n',
      status: 417,
      error: 'Unsupported Expect header (only 100-continue is)',
      code: 'EXPECTATION_FAILED',
    },
    {
      what: 'CONNECT to a host (this server is no proxy)',
      bytes: 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
      status: 405,
      error: 'Method CONNECT is not allowed (this server is not a proxy)',
      code: 'CONNECT_NOT_ALLOWED',
    },
    {
      what: 'CONNECT to a path',
      bytes: 'CONNECT /api/ping HTTP/1.1\r\nHost: x\r\n\r\n',
      status: 405,
      error: 'Method CONNECT is not allowed (this server is not a proxy)',
      code: 'CONNECT_NOT_ALLOWED',
    },
    {
      what: 'a Transfer-Encoding other than chunked (gzip, chunked)',
      bytes:
        'POST /api/ping HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\nConnection: close\r\n\r\n2\r\n{}\r\n0\r\n\r\n',
      status: 501,
      error: 'Unsupported Transfer-Encoding (only chunked is)',
      code: 'UNSUPPORTED_TRANSFER_ENCODING',
    },
    { what: 'headers that never end', bytes: 'GET /api/ping HTTP/1.1\r\nHost: x\r\n', status: 408, error: TIMED_OUT, code: 'ERR_HTTP_REQUEST_TIMEOUT' },
  ];
  for (const { what, bytes, status, error, code } of cases) {
    it(`answers ${what} with ${status} {error: "${error}"}, an x-request-id and Connection: close, logs and counts it, and goes on serving`, async () => {
      const answer = await sendRaw(server.port, bytes);
      expect(answer.status).to.equal(status);
      expect(answer.headers['content-type']).to.equal('application/json; charset=utf-8');
      expect(answer.headers.connection).to.equal('close');
      expect(answer.headers['x-request-id']).to.match(UUID);
      expect(JSON.parse(answer.body)).to.deep.equal({ error });
      const line = lines.find((l) => l.msg === 'request rejected');
      expect(line, 'one log line with the id sent back, the status and the code only').to.include({
        level: 30,
        reqId: answer.headers['x-request-id'],
        status,
        code,
      });
      expect(Object.keys(line ?? {}).sort()).to.deep.equal(['code', 'hostname', 'level', 'msg', 'pid', 'reqId', 'status', 'time']);
      expect(counted).to.deep.equal([['unmatched', 'UNKNOWN', status]]);
      await stillServes();
    });
  }

  it('closes a connection that sends nothing (a preconnect, a TCP health check) after the headers timeout without an answer, a log line or a count', async () => {
    // Node starts a connection's headers timeout when it opens, not at its first byte.
    const received = await new Promise<{ bytes: number; ended: boolean }>((resolve, reject) => {
      const socket = connect(server.port, '127.0.0.1');
      let bytes = 0;
      let ended = false;
      socket.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      socket.on('end', () => {
        ended = true;
      });
      socket.on('error', reject);
      // This side never closes: 'close' comes when the server closes the connection.
      socket.on('close', () => resolve({ bytes, ended }));
    });
    expect(received, 'closed by the server, nothing written').to.deep.equal({ bytes: 0, ended: true });
    expect(lines).to.deep.equal([]);
    expect(counted).to.deep.equal([]);
    await stillServes();
  });

  it('never echoes the refused request into the answer or the log', async () => {
    const answer = await sendRaw(server.port, 'GET /api/ping HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer sk-secret\r\nX-Foo: a\x01b\r\n\r\n');
    expect(answer.status).to.equal(400);
    expect(JSON.stringify(answer) + JSON.stringify(lines)).not.to.include('sk-secret');
  });

  it('answers a body that stops after 5 of its 50 bytes with 408 {error} within the request timeout, under the id and in the log line of the request', async () => {
    const started = performance.now();
    const answer = await sendRaw(server.port, 'POST /api/ping HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{"a":');
    expect(performance.now() - started, 'answered after the 1 s timeout (checked every 250 ms), not after 300 s').to.be.below(5000);
    expect(answer.status).to.equal(408);
    expect(answer.headers.connection).to.equal('close');
    expect(JSON.parse(answer.body)).to.deep.equal({ error: TIMED_OUT });
    // The request had reached the app, which gave it its id: the request log writes its one line.
    const requestId = answer.headers['x-request-id'];
    expect(requestId).to.match(UUID);
    await waitFor(() => lines.some((l) => l.msg === 'request'), 5000, 'the request log line');
    expect(lines.map(({ msg, reqId, status }) => ({ msg, reqId, status }))).to.deep.equal([{ msg: 'request', reqId: requestId, status: 408 }]);
    expect(counted).to.deep.equal([['unmatched', 'POST', 408]]);
    await stillServes();
  });

  it('answers before the body arrived whole (401 to a key-less create-job) on a kept connection, and writes no 408 after it when the rest never comes: one log line, one count', async () => {
    const answer = await sendRaw(
      server.port,
      'POST /api/create-job HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n{"job":',
    );
    expect(answer.status).to.equal(401);
    // Kept, as HTTP/1.1 wants: a client still sending its body must not get a reset instead of the answer.
    expect(answer.headers.connection).to.equal('keep-alive');
    // The whole of what came back on the connection, up to its close at the request timeout: one response.
    expect(answer.body).to.equal('{"error":"Unauthorized"}');
    await waitFor(() => lines.some((l) => l.msg === 'request'), 5000, 'the request log line');
    expect(lines.map(({ msg, status }) => ({ msg, status }))).to.deep.equal([{ msg: 'request', status: 401 }]);
    expect(counted).to.deep.equal([['unmatched', 'POST', 401]]);
    await stillServes();
  });

  it('keeps the connection open after an answer to a request whose body was read', async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(server.port, '127.0.0.1');
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        if (text.endsWith('"body":{"a":1}}')) {
          resolve(text);
          socket.destroy();
        }
      });
      socket.on('error', reject);
      socket.write('POST /api/ping HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{"a":1}');
    });
    expect(answer).to.match(/^HTTP\/1\.1 200 /);
    expect(answer.toLowerCase()).to.include('connection: keep-alive');
  });

  /** Writes `head`, then `body` once the server says 100 Continue; what came back up to the close. */
  const sendExpectingContinue = (head: string, body: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const socket = connect(server.port, '127.0.0.1');
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        const before = text;
        text += chunk.toString('utf8');
        if (!before.includes('100 Continue') && text.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) socket.write(body);
      });
      socket.on('error', reject);
      socket.on('close', () => resolve(text));
      socket.write(head);
    });

  it('answers a key-less create-job sent with Expect: 100-continue with 401 alone, never inviting its body with 100 Continue', async () => {
    const text = await sendExpectingContinue(
      'POST /api/create-job HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 9\r\nExpect: 100-continue\r\n\r\n',
      '{"job":1}',
    );
    expect(text).to.match(/^HTTP\/1\.1 401 Unauthorized\r\n/);
    expect(text).not.to.include('100 Continue');
    expect(text).to.include('\r\nConnection: close\r\n');
    expect(counted).to.deep.equal([['unmatched', 'POST', 401]]);
  });

  it('sends 100 Continue when the app reads the body of a request sent with Expect: 100-continue, then answers it', async () => {
    const text = await sendExpectingContinue(
      'POST /api/ping HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 7\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n',
      '{"a":1}',
    );
    expect(text).to.match(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK\r\n/);
    expect(text).to.match(/\{"message":"Pong!","body":\{"a":1\}\}$/);
  });

  it('answers CONNECT with an Allow header naming the methods the endpoints take', async () => {
    const answer = await sendRaw(server.port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expect(answer.status).to.equal(405);
    expect(answer.headers.allow).to.equal('GET, HEAD, POST, DELETE');
  });

  it('answers a chunked body with a bad chunk size, after the app got the request, with 400 "Malformed request body framing" and one log line', async () => {
    const answer = await sendRaw(
      server.port,
      'POST /api/ping HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
    );
    expect(answer.status).to.equal(400);
    expect(JSON.parse(answer.body)).to.deep.equal({ error: 'Malformed request body framing' });
    await waitFor(() => lines.some((l) => l.msg === 'request'), 5000, 'the request log line');
    expect(lines.map(({ msg, reqId, status }) => ({ msg, reqId, status }))).to.deep.equal([
      { msg: 'request', reqId: answer.headers['x-request-id'], status: 400 },
    ]);
    await stillServes();
  });

  it('answers a chunked body cut off by the caller with 400 "Malformed request body framing"', async () => {
    const answer = await sendRaw(
      server.port,
      'POST /api/ping HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"a":',
      { end: true },
    );
    expect(answer.status).to.equal(400);
    expect(JSON.parse(answer.body)).to.deep.equal({ error: 'Malformed request body framing' });
    await stillServes();
  });
});
