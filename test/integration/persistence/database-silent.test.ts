import { expect } from 'chai';
import pg from 'pg';
import type { DatabaseTimeouts } from '../../../src/adapters/shared/database-bounds.js';
import { loadConfig } from '../../../src/container/config.js';
import { Gateway } from '../../../src/container/gateway.js';
import { TOKENS } from '../../../src/container/tokens.js';
import { tempDir } from '../../support/gateway-process.js';
import { within } from '../../support/time-limit.js';
import { createScratchDatabase, describeWithPostgres, type ScratchDatabase } from '../../support/postgres.js';
import { type PostgresProxy, startPostgresProxy } from '../../support/postgres-outage.js';

/*
 * The whole service on PostgreSQL, in this process, reaching the server through a proxy that can
 * go silent: every connection stays open, and no byte goes through in either direction (a network
 * partition, a firewall dropping packets, a hung server). Nothing fails by itself then: without a
 * bound, a statement waits until the kernel gives up on its connection (hours). With the bounds
 * (DATABASE_CONNECT_TIMEOUT_MS, DATABASE_QUERY_TIMEOUT_MS; short here), a request is answered 503
 * within them, a stop ends, and once the server answers again the service serves as before.
 */

/** The bounds given to the service here (the settings take 1000 ms at least; the test sets them directly). */
const TIMEOUTS: DatabaseTimeouts = { connectMs: 500, queryMs: 1_000 };
/** The connection bound far below the statement bound, so that which of them ended a wait shows. */
const APART: DatabaseTimeouts = { connectMs: 500, queryMs: 4_000 };
/** The grace period: longer than a statement's bound, so that a request under way at a stop is answered within it. */
const SHUTDOWN_TIMEOUT_MS = 2_000;
/** Longer than any wait the bounds allow (a request's statements, a stop's steps), far shorter than the kernel's. */
const BOUND_MS = 15_000;
/** A stop's: longer than the statement bound it is given (30 s), so that a stop that waits for it fails the test's own limit first. */
const STOP_BOUND_MS = 40_000;

describeWithPostgres('The service while PostgreSQL stops answering without closing its connections', function () {
  this.timeout(90_000);
  let scratch: ScratchDatabase | undefined;
  let proxy: PostgresProxy | undefined;
  let gateway: Gateway | undefined;

  afterEach(async () => {
    if (proxy) proxy.silent = false;
    await gateway?.stop().catch(() => undefined);
    gateway = undefined;
    await proxy?.close();
    proxy = undefined;
    await scratch?.drop();
    scratch = undefined;
  });

  /** The service on the scratch database through the proxy, with short bounds; its base URL and an API key. */
  const start = async (timeouts: DatabaseTimeouts = TIMEOUTS): Promise<{ base: string; key: string }> => {
    scratch = await createScratchDatabase();
    proxy = await startPostgresProxy(scratch.url);
    const dataDir = await tempDir('database-silent');
    const config = loadConfig(
      {
        DATA_DIR: dataDir,
        DATABASE_URL: proxy.url,
        LOG_LEVEL: 'silent',
        HOST: '127.0.0.1',
        PORT: '0',
        JOB_AGENT_COMMAND: 'true',
        SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
      },
      dataDir,
    );
    gateway = await Gateway.start({ ...config, databaseTimeouts: timeouts });
    const { key } = await (await gateway.container.getAsync(TOKENS.KeyAdministration)).create('test');
    return { base: `http://127.0.0.1:${gateway.port}`, key };
  };

  const createJob = (base: string, key: string, job: string): Promise<Response> =>
    fetch(`${base}/api/create-job`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify({ job }) });

  /** The jobs stored, by their text, and how many run tasks each has (read past the proxy). */
  const stored = async (): Promise<Record<string, number>> => {
    const admin = new pg.Client({ connectionString: scratch!.url });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ job: string; tasks: number }>(
        "select j.job, (select count(*)::int from pgboss.job t where t.name = 'job-run' and t.data->>'jobId' = j.id::text) as tasks from jobs j",
      );
      return Object.fromEntries(rows.map((row) => [row.job, row.tasks]));
    } finally {
      await admin.end();
    }
  };

  it('answers an API request 503 within the bounds while the server is silent, and serves again, by itself, once it answers', async () => {
    const { base, key } = await start();
    expect((await createJob(base, key, 'before')).status).to.equal(200);

    proxy!.silent = true;
    const began = performance.now();
    const during = await within(BOUND_MS, 'a request while the server is silent', createJob(base, key, 'during'));
    const tookMs = performance.now() - began;
    expect(during.status).to.equal(503);
    expect(during.headers.get('retry-after')).to.equal('5');
    expect(await during.json()).to.deep.equal({ error: 'Database unavailable; try again shortly' });
    // A statement, or a connection, each given up after its bound: a few of them at most.
    expect(tookMs, 'the answer (ms), statements bounded at 1000 ms').to.be.below(5_000);

    proxy!.silent = false;
    const after = await within(BOUND_MS, 'a request once the server answers again', createJob(base, key, 'after'));
    expect(after.status, 'the first request once the server answers again').to.equal(200);
    const jobs = await stored();
    expect(jobs.before, 'the job stored before the silence, and its task').to.equal(1);
    expect(jobs.after, 'the job stored after it, and its task').to.equal(1);
  });

  it('answers the next requests 503 within the connection bound once a statement went unanswered, and bounds statements as before once the server answers', async () => {
    const { base, key } = await start(APART);
    expect((await createJob(base, key, 'before')).status).to.equal(200);

    proxy!.silent = true;
    const first = await within(BOUND_MS, 'the first request while the server is silent', createJob(base, key, 'first'));
    expect(first.status).to.equal(503);
    // The server known silent now: the next request is not held for the statement bound.
    const began = performance.now();
    const second = await within(BOUND_MS, 'the second request while the server is silent', createJob(base, key, 'second'));
    const tookMs = performance.now() - began;
    expect(second.status).to.equal(503);
    expect(await second.json()).to.deep.equal({ error: 'Database unavailable; try again shortly' });
    expect(tookMs, 'the second answer (ms): the connection bound, 500 ms, not the statement bound, 4000 ms').to.be.below(APART.queryMs / 2);

    proxy!.silent = false;
    const after = await within(BOUND_MS, 'a request once the server answers again', createJob(base, key, 'after'));
    expect(after.status, 'the first request once the server answers again').to.equal(200);
    // The server answers again: a statement slower than the connection bound, within the statement bound, is not cut.
    const database = await gateway!.container.getAsync(TOKENS.Database);
    const slept = await within(BOUND_MS, 'a statement of 1.5 s', database.orm.em.fork().getConnection().execute('select pg_sleep(1.5) as slept'));
    expect(slept).to.have.length(1);
    expect((await stored()).after, 'the job stored once the server answers again, and its task').to.equal(1);
  });

  it('rejects a task the queue cannot store (its own connections) within the bounds as the database being unavailable, and stores the next once the server answers', async () => {
    await start();
    const queue = await gateway!.container.getAsync(TOKENS.TaskQueue);
    expect(await queue.enqueue('retention-sweep', { n: 1 })).to.be.a('string');

    proxy!.silent = true;
    const failed = await within(BOUND_MS, "the queue's insert while the server is silent", queue.enqueue('retention-sweep', { n: 2 })).then(
      () => null,
      (error: Error) => error,
    );
    expect(failed?.name, `the queue's insert (${failed?.message})`).to.equal('DatabaseUnavailable');

    proxy!.silent = false;
    expect(await within(BOUND_MS, "the queue's insert once the server answers again", queue.enqueue('retention-sweep', { n: 3 }))).to.be.a('string');
  });

  it('lets a statement a working server is slow to answer end during a stop, slower than the connection bound', async () => {
    await start(APART);
    const database = await gateway!.container.getAsync(TOKENS.Database);
    const slow = database.orm.em.fork().getConnection().execute('select pg_sleep(1.5) as slept');
    const stopped = gateway!.stop();
    // Unanswered for 500 ms, the server was tried with a new connection, which it took: slow, not silent.
    expect(await within(BOUND_MS, 'a statement of 1.5 s under way at a stop', slow)).to.have.length(1);
    await within(BOUND_MS, 'the stop', stopped);
    gateway = undefined;
  });

  it('ends a stop within its grace periods and a few connection bounds while the server is silent, a request under way answered 503', async () => {
    // The statement bound is the default's (30 s): a stop that waited for it would fail the limit below.
    const timeouts = { connectMs: 500, queryMs: 30_000 };
    const { base, key } = await start(timeouts);
    expect((await createJob(base, key, 'before')).status).to.equal(200);

    proxy!.silent = true;
    const underWay = createJob(base, key, 'during').then(
      (response) => response.status,
      (error: Error) => error.message,
    );
    const began = performance.now();
    await within(STOP_BOUND_MS, 'the stop while the server is silent', gateway!.stop());
    const tookMs = performance.now() - began;
    gateway = undefined;
    // Its statement waited 500 ms, the server was tried with a new connection for 500 ms more: 503 within the grace period.
    expect(await underWay, 'the request under way at the stop').to.equal(503);
    // The steps, one after the other: the requests' grace period (2000 ms), the running tasks'
    // (2000 ms, the queue's graceful stop), and the steps that meet the silent server, each
    // within the connection bound once a statement waited for it and the server took no new
    // connection either (two bounds): a step before the requests' close, the requeue pass,
    // pg-boss's last statements and the connections each needs (up to five and one measured),
    // the pools' ends — about ten bounds. Measured 3.5 to 8.2 s; 2 × grace + 20 bounds is for a
    // loaded machine. A stop that waits for the statement bound (30 s) on any step fails it.
    expect(tookMs, 'the stop (ms), its grace period 2000 ms, connections bounded at 500 ms').to.be.below(2 * SHUTDOWN_TIMEOUT_MS + 20 * timeouts.connectMs);

    proxy!.silent = false;
    expect((await stored()).before, 'the job stored before the silence, and its task').to.equal(1);
  });
});
