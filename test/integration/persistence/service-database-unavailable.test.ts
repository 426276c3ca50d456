import { createServer, type Server, Socket } from 'node:net';
import { expect } from 'chai';
import pg from 'pg';
import { loadConfig } from '../../../src/container/config.js';
import { Gateway } from '../../../src/container/gateway.js';
import { TOKENS } from '../../../src/container/tokens.js';
import { tempDir } from '../../support/gateway-process.js';
import { createScratchDatabase, describeWithPostgres, type ScratchDatabase } from '../../support/postgres.js';

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
  let proxy: { server: Server; sockets: Set<Socket> } | undefined;
  const clients: pg.Client[] = [];

  afterEach(async () => {
    for (const client of clients.splice(0)) await client.end().catch(() => undefined);
    for (const socket of proxy?.sockets ?? []) socket.destroy();
    await new Promise<void>((resolve) => (proxy ? proxy.server.close(() => resolve()) : resolve()));
    proxy = undefined;
    await gateway?.stop().catch(() => undefined);
    gateway = undefined;
    await scratch?.drop();
    scratch = undefined;
  });

  const adminClient = async (): Promise<pg.Client> => {
    const client = new pg.Client({ connectionString: scratch!.url });
    clients.push(client);
    await client.connect();
    return client;
  };

  /** The service on the scratch database through the proxy; its base URL. */
  const start = async (): Promise<string> => {
    scratch = await createScratchDatabase();
    const target = new URL(scratch.url);
    const sockets = new Set<Socket>();
    const server = createServer((client) => {
      const upstream = new Socket();
      upstream.connect(Number(target.port || 5432), target.hostname);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy = { server, sockets };
    const via = new URL(scratch.url);
    via.hostname = '127.0.0.1';
    via.port = String((server.address() as { port: number }).port);
    const dataDir = await tempDir('service-database-unavailable');
    const config = loadConfig(
      // A local agent command: jobs can be created (the job's run is never waited for here).
      { DATA_DIR: dataDir, DATABASE_URL: via.toString(), LOG_LEVEL: 'silent', HOST: '127.0.0.1', PORT: '0', JOB_AGENT_COMMAND: 'true' },
      dataDir,
    );
    gateway = await Gateway.start(config);
    return `http://127.0.0.1:${gateway.port}`;
  };

  const serverGone = async (): Promise<void> => {
    await new Promise<void>((resolve) => {
      proxy!.server.close(() => resolve());
      for (const socket of proxy!.sockets) socket.destroy();
    });
    proxy = undefined;
  };

  it('answers a job whose task the queue cannot store (its session ended: 57P01) 503 with Retry-After, not 500', async () => {
    const base = await start();
    const { key } = await (await gateway!.container.getAsync(TOKENS.KeyAdministration)).create('test');
    const createJob = (job: string) =>
      fetch(`${base}/api/create-job`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify({ job }) });
    expect((await createJob('first')).status).to.equal(200);
    // The queue's insert is held by a lock, then its session is ended; the ORM's statements are untouched.
    const locker = await adminClient();
    await locker.query('begin');
    await locker.query('lock table pgboss.job in access exclusive mode');
    const answer = createJob('second');
    const admin = await adminClient();
    let ended = 0;
    for (let i = 0; i < 400 && ended === 0; i++) {
      ended =
        (
          await admin.query(
            "select pg_terminate_backend(pid) from pg_stat_activity where wait_event_type = 'Lock' and query like '%INSERT INTO pgboss.job%' and pid <> pg_backend_pid()",
          )
        ).rowCount ?? 0;
      if (ended === 0) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(ended, 'the held insert was found').to.equal(1);
    await locker.query('rollback');
    const response = await answer;
    expect(response.status).to.equal(503);
    expect(response.headers.get('retry-after')).to.equal('5');
    expect(await response.json()).to.deep.equal({ error: 'Database unavailable; try again shortly' });
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
