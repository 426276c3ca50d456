import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import Koa from 'koa';
import { pino } from 'pino';
import { requestLog } from '../../../src/adapters/http/middleware/request-log.js';
import { DomainError } from '../../../src/domain/errors/domain-error.js';

const SECRET = 'sk-ant-api03-DoNotLeakThisSecret';

/** What each path throws. */
const FAILURES: Record<string, () => never> = {
  '/provider': () => {
    throw new DomainError('internal', `The anthropic model call failed: 401 invalid x-api-key ${SECRET}`, { cause: new Error(`401 ${SECRET}`) });
  },
  '/library': () => {
    throw new Error(`connect ECONNREFUSED postgres://agw:${SECRET}@db:5432/agw`);
  },
  '/spec-text': () => {
    throw new DomainError('internal', 'Failed to create job', { cause: new Error(`insert failed near ${SECRET}`) });
  },
  '/caller': () => {
    throw new DomainError('invalid_input', 'Missing job field');
  },
  '/database-unavailable': () => {
    // As a use case wraps it (SPEC 7's fixed text): the database's failure decides the answer.
    throw new DomainError('internal', 'Failed to create job', {
      cause: new DomainError('unavailable', `The embedded database stopped after a PANIC: could not write to file "pg_wal/xlogtemp.42" ${SECRET}`),
    });
  },
  '/busy': () => {
    throw new DomainError('busy', 'Job queue full: 100 jobs are already waiting to run (JOB_QUEUE_LIMIT=100); try again once some have started');
  },
  '/not-configured': () => {
    throw new DomainError('not_configured', 'Jobs are not configured: set JOB_AGENT_COMMAND');
  },
};

describe('the request log answering failures (respondWithError)', () => {
  let server: Server;
  let url: string;
  const lines: Array<Record<string, unknown>> = [];

  before(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
        done();
      },
    });
    const app = new Koa();
    app.silent = true;
    app.use(requestLog(pino({ level: 'info' }, sink)));
    app.use((ctx) => FAILURES[ctx.path]());
    server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const call = async (path: string): Promise<{ status: number; text: string; line: Record<string, unknown> }> => {
    const response = await fetch(`${url}${path}`);
    const text = await response.text();
    const line = lines.find((entry) => entry.path === path);
    expect(line, `log line for ${path}`).to.exist;
    return { status: response.status, text, line: line! };
  };

  it("answers a provider's or a library's failure with 500 Internal server error, and logs its text", async () => {
    for (const path of ['/provider', '/library']) {
      const { status, text, line } = await call(path);
      expect(status, path).to.equal(500);
      expect(JSON.parse(text), path).to.deep.equal({ error: 'Internal server error' });
      expect(text, path).not.to.contain(SECRET);
      expect(line.level, path).to.equal(50);
      expect(JSON.stringify(line.err), path).to.contain(SECRET);
    }
  });

  it("keeps SPEC 7's fixed 500 texts, logging their cause", async () => {
    const { status, text, line } = await call('/spec-text');
    expect({ status, body: JSON.parse(text) }).to.deep.equal({ status: 500, body: { error: 'Failed to create job' } });
    expect(JSON.stringify(line.err)).to.contain(SECRET);
  });

  it("shows a caller's mistake and a missing configuration as they are, without an error log", async () => {
    const caller = await call('/caller');
    expect({ status: caller.status, body: JSON.parse(caller.text) }).to.deep.equal({ status: 400, body: { error: 'Missing job field' } });
    expect(caller.line).to.include({ level: 30 });
    const missing = await call('/not-configured');
    expect({ status: missing.status, body: JSON.parse(missing.text) }).to.deep.equal({
      status: 501,
      body: { error: 'Jobs are not configured: set JOB_AGENT_COMMAND' },
    });
  });

  it('answers a database that is unavailable with 503 Database unavailable and Retry-After, and logs the cause', async () => {
    const response = await fetch(`${url}/database-unavailable`);
    expect({ status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.json() }).to.deep.equal({
      status: 503,
      retryAfter: '5',
      body: { error: 'Database unavailable; try again shortly' },
    });
    const line = lines.find((entry) => entry.path === '/database-unavailable');
    expect(line?.level).to.equal(50);
    expect(JSON.stringify(line?.err)).to.contain('stopped after a PANIC');
  });
});

describe('the request log answering a full job queue (busy)', () => {
  let server: Server;
  const lines: Array<Record<string, unknown>> = [];
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('answers 503 with its message and Retry-After: 60, logged as a request (no error: nothing failed)', async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
        done();
      },
    });
    const app = new Koa();
    app.silent = true;
    app.use(requestLog(pino({ level: 'info' }, sink)));
    app.use(() => FAILURES['/busy']());
    server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/busy`);
    expect({ status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.json() }).to.deep.equal({
      status: 503,
      retryAfter: '60',
      body: { error: 'Job queue full: 100 jobs are already waiting to run (JOB_QUEUE_LIMIT=100); try again once some have started' },
    });
    expect(lines.map((line) => line.level)).to.deep.equal([30]);
  });
});

describe("a shared caller's error (DomainError) reaching Koa's own error handler", () => {
  const servers: Server[] = [];
  /** Serves a Koa app that throws `error` on every request; resolves to its address. */
  const serveThrowing = async (error: DomainError, withRequestLog: boolean): Promise<string> => {
    const app = new Koa();
    app.silent = true;
    if (withRequestLog) app.use(requestLog(pino({ level: 'silent' })));
    app.use(() => {
      throw error;
    });
    const server = createServer(app.callback());
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  };
  afterEach(async () => {
    for (const server of servers.splice(0)) await new Promise<void>((resolve) => server.close(() => resolve()).closeAllConnections());
  });

  it('is answered there without ending the process, and the request log still answers it as a 400', async () => {
    const shared = new DomainError('invalid_input', 'Missing job field');
    expect(new DomainError('invalid_input', 'Missing job field')).to.equal(shared);
    // Koa's handler writes `status` on the error it is given: on a frozen error that write would
    // throw in a promise's handler, leaving the request unanswered (and ending the service).
    const bare = await serveThrowing(shared, false);
    for (const attempt of [1, 2]) expect((await fetch(bare, { signal: AbortSignal.timeout(5000) })).status, `attempt ${attempt}`).to.equal(500);

    const answer = await fetch(await serveThrowing(shared, true));
    expect({ status: answer.status, body: await answer.json() }).to.deep.equal({ status: 400, body: { error: 'Missing job field' } });
  });
});
