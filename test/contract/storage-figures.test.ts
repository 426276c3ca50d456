import { expect } from 'chai';
import { dataDirFor, migratedPgliteDataDir } from '../support/databases.js';
import { PinoLogger, createPino } from '../../src/adapters/logging/pino-logger.js';
import { Database } from '../../src/adapters/persistence/database.js';
import { PostgresStorageFigures, SERVICE_TABLES } from '../../src/adapters/persistence/postgres-storage-figures.js';
import { InMemoryStorageFigures } from '../fakes/in-memory-storage-figures.js';
import { createScratchDatabase, describeWithPostgres } from '../support/postgres.js';
import { describeStorageFiguresContract } from './storage-figures.contract.js';

const logger = new PinoLogger(createPino('silent'));
// The queue's table does not exist in a database the queue never started in.
const ABSENT = 'pgboss.job';

describeStorageFiguresContract('in-memory fake', async () => {
  const figures = new InMemoryStorageFigures(SERVICE_TABLES.filter((t) => t !== ABSENT));
  return {
    figures,
    tables: SERVICE_TABLES,
    absent: ABSENT,
    addSettingsRows: async (count) => figures.addRows('settings', count),
    close: async () => undefined,
  };
});

const onDatabase = async (databaseUrl: string | undefined, drop: () => Promise<void>) => {
  const database = await Database.open({ databaseUrl, dataDir: await dataDirFor(databaseUrl, 'storage-figures'), logger });
  await database.migrate();
  return {
    figures: new PostgresStorageFigures(database),
    tables: SERVICE_TABLES,
    absent: ABSENT,
    addSettingsRows: async (count: number) => {
      const connection = database.orm.em.getConnection();
      await connection.execute(`insert into settings (key, value, updated_at) select 'row-' || n, repeat('x', 200), now() from generate_series(1, ?) as n`, [
        count,
      ]);
      await connection.execute('analyze settings');
    },
    close: async () => {
      await database.close();
      await drop();
    },
  };
};

describeStorageFiguresContract('PostgreSQL catalog on PGlite', () => onDatabase(undefined, async () => undefined));

describeWithPostgres('StorageFigures on PostgreSQL', () => {
  describeStorageFiguresContract('PostgreSQL catalog on PostgreSQL', async () => {
    const scratch = await createScratchDatabase();
    return onDatabase(scratch.url, () => scratch.drop());
  });
});

describe('PostgresStorageFigures', () => {
  it('lists every table the migrations create, so that the health page shows each', async function () {
    this.timeout(60_000);
    const database = await Database.open({ databaseUrl: undefined, dataDir: await migratedPgliteDataDir('storage-tables'), logger });
    try {
      const rows = await database.orm.em
        .getConnection()
        .execute<Array<{ name: string }>>("select tablename as name from pg_tables where schemaname = 'public' and tablename not like 'mikro_orm%' order by 1");
      expect(rows.map((row) => row.name)).to.have.members(SERVICE_TABLES.filter((table) => !table.includes('.')));
    } finally {
      await database.close();
    }
  });

  it("sums every partition of a partitioned table, as pg-boss keeps the queue's table", async function () {
    this.timeout(60_000);
    const database = await Database.open({ databaseUrl: undefined, dataDir: await migratedPgliteDataDir('storage-partitions'), logger });
    try {
      const connection = database.orm.em.getConnection();
      for (const sql of [
        'create schema pgboss',
        'create table pgboss.job (name text not null, data text) partition by list (name)',
        "create table pgboss.j_chat partition of pgboss.job for values in ('chat')",
        'create table pgboss.j_other partition of pgboss.job default',
        "insert into pgboss.job select case when n % 2 = 0 then 'chat' else 'trigger' end, repeat('x', 100) from generate_series(1, 300) as n",
        'analyze pgboss.job',
      ]) {
        await connection.execute(sql);
      }
      const [size] = await new PostgresStorageFigures(database, ['pgboss.job']).tableSizes();
      expect(size.table).to.equal('pgboss.job');
      expect(size.rowsEstimate).to.equal(300);
      expect(size.bytes).to.be.above(2 * 8192);
    } finally {
      await database.close();
    }
  });
});
