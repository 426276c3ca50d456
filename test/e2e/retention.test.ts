import { expect } from 'chai';
import { join } from 'node:path';
import pg from 'pg';
import { startGateway, tempDir, type GatewayProcess } from '../support/gateway-process.js';
import { migratedDataDir } from '../support/data-dirs.js';
import { waitFor } from '../support/http.js';
import { createScratchDatabase, describeWithPostgres, type ScratchDatabase } from '../support/postgres.js';

/*
 * End-to-end: the BUILT server asks for the retention sweep at start and runs it on its task
 * queue; two replicas on one PostgreSQL store one sweep per period between them and run it once.
 */

const SWEPT = /^retention sweep (deleted expired records|found nothing expired)$/;
const sweepsLogged = (gateway: GatewayProcess): number => gateway.logs.filter((entry) => typeof entry === 'object' && SWEPT.test(String(entry.msg))).length;
const DAY_MINUTES = 1440;
const periodOf = (ms: number): number => Math.floor(ms / (DAY_MINUTES * 60_000));

describe('e2e: retention sweep (embedded database)', function () {
  this.timeout(60_000);
  let gateway: GatewayProcess | undefined;
  after(() => gateway?.stop());

  it('runs a sweep shortly after start, without any request', async () => {
    const dir = await migratedDataDir('e2e-retention');
    // An interval of its own: the copied database's first start (the template) already ran the
    // sweep of the default interval's current period, and a period is swept once.
    gateway = await startGateway({ DATA_DIR: dir, TRIGGERS_FILE: join(dir, 'none.json'), LOG_LEVEL: 'debug', RETENTION_SWEEP_MINUTES: '720' });
    await waitFor(() => sweepsLogged(gateway!) > 0, 30_000, 'a retention sweep in the log');
  });
});

describeWithPostgres('e2e: retention sweep across two replicas (PostgreSQL)', function () {
  this.timeout(120_000);
  let database: ScratchDatabase | undefined;
  const replicas: GatewayProcess[] = [];
  after(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await database?.drop();
  });

  it('stores one sweep per period between the replicas, and runs each once', async () => {
    database = await createScratchDatabase();
    const env = {
      DATABASE_URL: database.url,
      TRIGGERS_FILE: join(await tempDir('e2e-retention'), 'none.json'),
      LOG_LEVEL: 'debug',
      RETENTION_SWEEP_MINUTES: String(DAY_MINUTES),
    };
    const firstPeriod = periodOf(Date.now());
    // One after the other: both migrate the same database at start-up.
    replicas.push(await startGateway({ ...env, DATA_DIR: await tempDir('e2e-retention-a') }));
    replicas.push(await startGateway({ ...env, DATA_DIR: await tempDir('e2e-retention-b') }));
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const finished = async () =>
        (await client.query<{ state: string }>("select state from pgboss.job where name = 'retention-sweep'")).rows.map((row) => row.state);
      // Both replicas asked at start (before they said they listen); every stored sweep has run.
      const states = await waitFor(
        async () => {
          const now = await finished();
          return now.length > 0 && now.every((state) => state === 'completed') ? now : undefined;
        },
        60_000,
        'the stored sweeps to complete',
      );
      // Normally one period; two when the test ran across a period's end (midnight UTC).
      expect(states).to.have.length(periodOf(Date.now()) - firstPeriod + 1);
      // Each ran once: as many sweeps logged as stored (a log line may still be on its way).
      const logged = () => replicas.map(sweepsLogged).reduce((a, b) => a + b, 0);
      await waitFor(() => logged() >= states.length, 10_000, 'the sweeps in the logs');
      expect(logged()).to.equal(states.length);
    } finally {
      await client.end();
    }
  });
});
