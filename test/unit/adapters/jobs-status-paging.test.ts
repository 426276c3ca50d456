import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import Koa from 'koa';
import { NodeApiKeyCrypto } from '../../../src/adapters/crypto/node-api-key-crypto.js';
import { apiRouter } from '../../../src/adapters/http/api-router.js';
import { apiHandlers, type HandlerDependencies } from '../../../src/adapters/http/handlers.js';
import { requestLog } from '../../../src/adapters/http/middleware/request-log.js';
import { createPino } from '../../../src/adapters/logging/pino-logger.js';
import { AuthenticateApiKey } from '../../../src/application/auth/authenticate-api-key.js';
import { CreateApiKey } from '../../../src/application/auth/create-api-key.js';
import { decodeJobCursor, encodeJobCursor, GetJobStatus } from '../../../src/application/jobs/get-job-status.js';
import { FireTriggers } from '../../../src/application/triggers/fire-triggers.js';
import { apiRoutes } from '../../../src/domain/auth/route-policy.js';
import type { Job, JobStatus } from '../../../src/domain/jobs/job.js';
import { FixedClock } from '../../fakes/fixed-clock.js';
import { InMemoryInboundRequestStore } from '../../fakes/in-memory-inbound-request-store.js';
import { InMemoryJobRepository } from '../../fakes/in-memory-job-repository.js';
import { InMemoryKeyRepository } from '../../fakes/in-memory-key-repository.js';
import { InMemoryTaskQueue } from '../../fakes/in-memory-task-queue.js';
import { InMemoryTriggerLanes } from '../../fakes/in-memory-trigger-lanes.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';
import { SequentialIds } from '../../fakes/sequential-ids.js';

const T0 = Date.UTC(2026, 11, 1, 9, 0, 0, 0);

const job = (n: number, status: JobStatus, createdAt: Date): Job => {
  const id = `50000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
  return {
    id,
    job: `Fix ${n}`,
    status,
    source: { kind: 'api' },
    llmProvider: null,
    llmModel: null,
    branch: `job/${id}`,
    prUrl: null,
    runUrl: null,
    summary: null,
    error: null,
    log: null,
    createdAt,
    updatedAt: createdAt,
  };
};

interface Listing {
  readonly jobs: Array<{ job_id: string; status: string }>;
  readonly next_before?: string;
}

/** GET /api/jobs/status through the service's router and handler, on the in-memory job repository. */
describe('GET /api/jobs/status pages the listing (before / next_before)', () => {
  let server: Server;
  let url: string;
  let key: string;
  let jobs: InMemoryJobRepository;

  beforeEach(async () => {
    const clock = new FixedClock();
    const logger = new RecordingLogger();
    const keys = new InMemoryKeyRepository();
    const crypto = new NodeApiKeyCrypto();
    key = (await new CreateApiKey(keys, crypto, new SequentialIds(), clock).execute({ name: 'ci' })).key;
    jobs = new InMemoryJobRepository();
    const fireTriggers = new FireTriggers(
      { current: () => [] },
      new InMemoryInboundRequestStore(),
      new InMemoryTaskQueue(),
      new SequentialIds(),
      clock,
      logger,
      new InMemoryTriggerLanes(),
    );
    const routes = apiRoutes([]);
    const deps = { routes, getJobStatus: new GetJobStatus(jobs) } as unknown as HandlerDependencies;
    const app = new Koa();
    app.silent = true;
    app.use(requestLog(createPino('silent')));
    app.use(
      apiRouter({
        routes,
        credentialHeaders: [],
        authenticate: new AuthenticateApiKey(keys, crypto, clock, logger),
        fireTriggers,
        handlers: { 'job-status': apiHandlers(deps)['job-status'] },
        bodyLimit: 64 * 1024,
      }),
    );
    server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterEach(async () => new Promise<void>((resolve) => server.close(() => resolve())));

  const get = async <T = Listing>(query: string): Promise<{ status: number; body: T }> => {
    const response = await fetch(`${url}/api/jobs/status${query}`, { headers: { 'x-api-key': key } });
    return { status: response.status, body: (await response.json()) as T };
  };

  /** Every page from `query` on, following next_before; the ids in the order listed. */
  const allPages = async (query: string): Promise<{ ids: string[]; pages: number }> => {
    const ids: string[] = [];
    let pages = 0;
    let before: string | undefined;
    do {
      const answer = await get(`${query}${before === undefined ? '' : `&before=${encodeURIComponent(before)}`}`);
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
      pages++;
      ids.push(...answer.body.jobs.map((one) => one.job_id));
      before = answer.body.next_before;
      expect(pages, 'the pages end').to.be.at.most(500);
    } while (before !== undefined);
    return { ids, pages };
  };

  it('lists every job once, newest first (created_at desc, id desc), across pages whose borders fall inside one millisecond', async () => {
    // 230 queued jobs: 200 created in one millisecond, 30 a second apart; and finished ones, not listed.
    const same = new Date(T0 + 100_000);
    const made: Job[] = [];
    for (let n = 0; n < 230; n++) made.push(job(n, 'queued', n < 200 ? same : new Date(T0 + (n - 200) * 1000)));
    for (let n = 230; n < 240; n++) made.push(job(n, 'succeeded', same));
    // Stored in an order that is not the listing's.
    for (const one of made
      .slice()
      .sort((a, b) => (a.branch.slice(-3) < b.branch.slice(-3) ? -1 : 1))
      .reverse())
      await jobs.add(one);
    const expected = made
      .filter((one) => one.status === 'queued')
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1))
      .map((one) => one.id);

    for (const limit of [1, 7, 50, 200]) {
      const { ids, pages } = await allPages(`?limit=${limit}`);
      expect(ids, `limit=${limit}`).to.deep.equal(expected);
      expect(pages, `limit=${limit}: no empty last page`).to.equal(Math.ceil(expected.length / limit));
    }
    // The default limit (50), and a status narrowing.
    expect((await allPages('?status=queued')).ids).to.deep.equal(expected);
    expect((await allPages('?status=succeeded&limit=3')).ids).to.deep.equal(
      made
        .slice(230)
        .map((one) => one.id)
        .reverse(),
    );
  });

  it('answers the first page as before paging: next_before only when more jobs follow, none on the last page', async () => {
    for (let n = 0; n < 3; n++) await jobs.add(job(n, 'running', new Date(T0 + n)));
    const first = await get('?limit=2');
    expect(first.status).to.equal(200);
    expect(first.body.jobs.map((one) => one.job_id.slice(-1))).to.deep.equal(['2', '1']);
    expect(first.body.next_before).to.equal(encodeJobCursor({ createdAt: new Date(T0 + 1), id: first.body.jobs[1].job_id }));
    const second = await get(`?limit=2&before=${first.body.next_before}`);
    expect(second.body).to.have.all.keys('jobs');
    expect(second.body.jobs.map((one) => one.job_id.slice(-1))).to.deep.equal(['0']);
    // Exactly as many as the limit, none after: no cursor.
    expect((await get('?limit=3')).body).to.have.all.keys('jobs');
    expect(await get('?status=failed')).to.deep.equal({ status: 200, body: { jobs: [] } });
  });

  it('answers 400 {error} naming before for a cursor it did not give, and for before given twice', async () => {
    await jobs.add(job(1, 'queued', new Date(T0)));
    const good = encodeJobCursor({ createdAt: new Date(T0 + 1), id: '50000000-0000-4000-8000-000000000009' });
    expect((await get(`?before=${good}`)).body.jobs).to.have.length(1);
    const b64 = (text: string): string => Buffer.from(text).toString('base64url');
    const malformed = [
      '',
      'abc',
      '!!!!',
      `${good}=`,
      `${good}.`,
      b64('2026-12-01T09:00:00.000Z'),
      b64('2026-12-01T09:00:00.000Z 50000000-0000-4000-8000-00000000000'),
      b64('2026-02-30T09:00:00.000Z 50000000-0000-4000-8000-000000000001'),
      b64('2026-12-01T09:00:00Z 50000000-0000-4000-8000-000000000001'),
      b64('2026-12-01T09:00:00.000Z 50000000-0000-4000-8000-00000000000G'),
      b64(' 2026-12-01T09:00:00.000Z 50000000-0000-4000-8000-000000000001'),
      // Year 0000: a JavaScript Date (1 BC), but no year PostgreSQL reads ('date/time field value
      // out of range'): the database's error was a 500. No job was created then.
      b64('0000-01-01T00:00:00.000Z 50000000-0000-4000-8000-000000000001'),
      b64('0000-12-31T23:59:59.999Z 50000000-0000-4000-8000-000000000001'),
      '2026-12-01T09:00:00.000Z',
      'x'.repeat(5000),
    ];
    for (const before of malformed) {
      const answer = await get<Record<string, unknown>>(`?before=${encodeURIComponent(before)}`);
      expect(answer, before.slice(0, 60)).to.deep.equal({ status: 400, body: { error: 'before must be the next_before of an earlier answer' } });
    }
    expect(await get<Record<string, unknown>>(`?before=${good}&before=${good}`)).to.deep.equal({ status: 400, body: { error: 'Give before once' } });
    // job_id answers one job, whatever else is given (as status and limit).
    expect((await get<Record<string, unknown>>(`?job_id=50000000-0000-4000-8000-000000000001&before=${good}`)).status).to.equal(200);
  });

  it('a cursor is the job it names, round trip; base64url of "<created_at> <id>"', () => {
    const at = { createdAt: new Date(T0 + 123), id: 'abcdef01-0000-4000-8000-000000000009' };
    expect(decodeJobCursor(encodeJobCursor(at))).to.deep.equal(at);
    expect(Buffer.from(encodeJobCursor(at), 'base64url').toString()).to.equal('2026-12-01T09:00:00.123Z abcdef01-0000-4000-8000-000000000009');
    // Upper-case ids are no cursor this service gives.
    expect(decodeJobCursor(Buffer.from('2026-12-01T09:00:00.123Z ABCDEF01-0000-4000-8000-000000000009').toString('base64url'))).to.equal(undefined);
  });
});
