import { expect } from 'chai';
import pg from 'pg';
import { loadConfig } from '../../../src/container/config.js';
import { Gateway } from '../../../src/container/gateway.js';
import { TOKENS } from '../../../src/container/tokens.js';
import { tempDir } from '../../support/gateway-process.js';
import { createScratchDatabase, describeWithPostgres, type ScratchDatabase } from '../../support/postgres.js';
import { endHeldQueueInsert, type PostgresProxy, startPostgresProxy } from '../../support/postgres-outage.js';

/*
 * The whole service on PostgreSQL, in this process, reaching the server through a proxy that the
 * test can take away: what a caller and a browser get while the database cannot be used. An API
 * request whose only failing statement is the task queue's insert (its own connections) is a 503
 * with Retry-After like one whose ORM statement failed; the admin UI answers a browser with a 503
 * page titled "Database unavailable", with Retry-After.
 */

const PASSWORD = 'correct horse battery';

describeWithPostgres('The service while PostgreSQL cannot be used (API and admin UI)', function () {
  this.timeout(90_000);
  let scratch: ScratchDatabase | undefined;
  let gateway: Gateway | undefined;
  let proxy: PostgresProxy | undefined;

  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
    await gateway?.stop().catch(() => undefined);
    gateway = undefined;
    await scratch?.drop();
    scratch = undefined;
  });

  /** The service on the scratch database through the proxy; its base URL. */
  const start = async (): Promise<string> => {
    scratch = await createScratchDatabase();
    proxy = await startPostgresProxy(scratch.url);
    const dataDir = await tempDir('service-database-unavailable');
    const config = loadConfig(
      // A local agent command: jobs can be created (the job's run is never waited for here).
      { DATA_DIR: dataDir, DATABASE_URL: proxy.url, LOG_LEVEL: 'silent', HOST: '127.0.0.1', PORT: '0', JOB_AGENT_COMMAND: 'true' },
      dataDir,
    );
    gateway = await Gateway.start(config);
    return `http://127.0.0.1:${gateway.port}`;
  };

  const serverGone = async (): Promise<void> => {
    await proxy!.close();
    proxy = undefined;
  };

  it('answers a job whose task the queue cannot store (its session ended: 57P01) 503 with Retry-After, not 500', async () => {
    const base = await start();
    const { key } = await (await gateway!.container.getAsync(TOKENS.KeyAdministration)).create('test');
    const createJob = (job: string) =>
      fetch(`${base}/api/create-job`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify({ job }) });
    expect((await createJob('first')).status).to.equal(200);
    // The queue's insert is held by a lock, then its session is ended; the ORM's statements are untouched.
    const response = await endHeldQueueInsert(scratch!.url, () => createJob('second'));
    expect(response.status).to.equal(503);
    expect(response.headers.get('retry-after')).to.equal('5');
    expect(await response.json()).to.deep.equal({ error: 'Database unavailable; try again shortly' });
  });

  it('creates one job for a request answered 503 as its task could not be stored, sent again with its Idempotency-Key: the retry answers with the job the first attempt stored and queues its task', async () => {
    const base = await start();
    const { key } = await (await gateway!.container.getAsync(TOKENS.KeyAdministration)).create('test');
    const createJob = () =>
      fetch(`${base}/api/create-job`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key, 'idempotency-key': 'order-7' },
        body: JSON.stringify({ job: 'Fix the login form' }),
      });
    // The queue's insert is held by a lock, then its session is ended (57P01): the job is stored by then.
    const first = await endHeldQueueInsert(scratch!.url, createJob);
    expect(first.status).to.equal(503);
    expect(first.headers.get('retry-after')).to.equal('5');

    const retried = await createJob();
    expect(retried.status).to.equal(200);
    const { job_id: jobId } = (await retried.json()) as { job_id: string };
    const admin = new pg.Client({ connectionString: scratch!.url });
    await admin.connect();
    try {
      const jobs = await admin.query("select id from jobs where job = 'Fix the login form'");
      expect(jobs.rows, 'job records of the request').to.deep.equal([{ id: jobId }]);
      const tasks = await admin.query("select id from pgboss.job where name = 'job-run' and data->>'jobId' = $1", [jobId]);
      expect(tasks.rowCount, 'run tasks of the job').to.equal(1);
    } finally {
      await admin.end();
    }
    const again = await createJob();
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(((await again.json()) as { job_id: string }).job_id).to.equal(jobId);
    // Stopped while the server is there: the job may be running now, and a stop after the proxy
    // is gone at times waited for it past the hook's 90 s (seen 1 run in 4, not looked into).
    await gateway!.stop();
    gateway = undefined;
  });

  it('answers the admin pages, a live part and a login with a 503 page titled "Database unavailable", with Retry-After', async () => {
    const base = await start();
    await (await gateway!.container.getAsync(TOKENS.AdminAuthentication)).setPassword(PASSWORD);
    const page = await fetch(`${base}/settings/login`);
    const nonceCookie = page.headers.getSetCookie()[0].split(';')[0];
    const nonce = /name="nonce" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
    const login = () =>
      fetch(`${base}/settings/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: nonceCookie },
        body: new URLSearchParams({ password: PASSWORD, nonce }).toString(),
      });
    const signedIn = await login();
    expect(signedIn.status).to.equal(303);
    const session = signedIn.headers
      .getSetCookie()
      .map((line) => line.split(';')[0])
      .find((pair) => pair.startsWith('agw_session='))!;
    expect((await fetch(`${base}/settings/keys`, { headers: { cookie: session } })).status).to.equal(200);

    await serverGone();
    for (const [what, request] of [
      ['a page', () => fetch(`${base}/settings/keys`, { redirect: 'manual', headers: { cookie: session } })],
      ['a live part', () => fetch(`${base}/settings/status`, { redirect: 'manual', headers: { cookie: session, 'HX-Request': 'true' } })],
      ['a login', login],
    ] as const) {
      const response = await request();
      const body = await response.text();
      expect(response.status, what).to.equal(503);
      expect(response.headers.get('retry-after'), what).to.equal('5');
      expect(response.headers.get('content-type'), what).to.equal('text/html; charset=utf-8');
      expect(body, what).to.contain('<title>Database unavailable · Agent Gateway</title>');
      expect(body, what).to.contain('Database unavailable; try again shortly');
    }
  });
});
