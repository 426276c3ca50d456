import { expect } from 'chai';
import { migratedPgliteDataDir } from '../support/databases.js';
import { PinoLogger, createPino } from '../../src/adapters/logging/pino-logger.js';
import { Database } from '../../src/adapters/persistence/database.js';
import { MikroOrmLoginAttempts } from '../../src/adapters/persistence/mikro-orm-login-attempts.js';
import { InMemoryLoginAttempts } from '../fakes/in-memory-login-attempts.js';
import { tempDir } from '../support/gateway-process.js';
import { createScratchDatabase, describeWithPostgres } from '../support/postgres.js';
import { describeLoginAttemptsContract } from './login-attempts.contract.js';
import { sql } from '../support/databases.js';

const logger = new PinoLogger(createPino('silent'));

describeLoginAttemptsContract(
  'in-memory fake',
  async () => {
    const harness = {
      attempts: new InMemoryLoginAttempts(),
      reset: async () => harness.attempts.windows.clear(),
      close: async () => undefined,
    };
    return harness;
  },
  { replicas: false },
);

describeLoginAttemptsContract(
  'MikroORM on PGlite',
  async () => {
    const database = await Database.open({ databaseUrl: undefined, dataDir: await migratedPgliteDataDir('login-attempts'), logger });
    await database.migrate();
    return {
      attempts: new MikroOrmLoginAttempts(database),
      // PGlite is one process: a "replica" is a second adapter on it.
      replica: new MikroOrmLoginAttempts(database),
      reset: async () => void (await sql(database, 'truncate admin_login_attempts')),
      close: () => database.close(),
    };
  },
  { replicas: true },
);

describeWithPostgres('LoginAttempts on PostgreSQL', () => {
  describeLoginAttemptsContract(
    'MikroORM on PostgreSQL (two replicas: two pools on one database)',
    async () => {
      const scratch = await createScratchDatabase();
      const first = await Database.open({ databaseUrl: scratch.url, dataDir: await tempDir('login-attempts'), logger });
      await first.migrate();
      const second = await Database.open({ databaseUrl: scratch.url, dataDir: await tempDir('login-attempts'), logger });
      return {
        attempts: new MikroOrmLoginAttempts(first),
        replica: new MikroOrmLoginAttempts(second),
        reset: async () => void (await sql(first, 'truncate admin_login_attempts')),
        close: async () => {
          await first.close();
          await second.close();
          await scratch.drop();
        },
      };
    },
    { replicas: true },
  );

  describe('MikroOrmLoginAttempts on PostgreSQL: ended windows', function () {
    this.timeout(60_000);
    it('are deleted, a bounded number per counted attempt', async () => {
      const scratch = await createScratchDatabase();
      const database = await Database.open({ databaseUrl: scratch.url, dataDir: await tempDir('login-attempts'), logger });
      try {
        await database.migrate();
        const attempts = new MikroOrmLoginAttempts(database);
        const window = 60_000;
        const t0 = new Date('2026-03-01T10:00:00Z');
        for (let i = 0; i < 150; i++) await attempts.count(String(i).padStart(64, 'c'), t0, window);
        const rows = async () => Number((await sql<{ n: string }>(database, 'select count(*) as n from admin_login_attempts'))[0].n);
        expect(await rows()).to.equal(150);
        const later = new Date(t0.getTime() + window);
        await attempts.count('late'.padEnd(64, '0'), later, window);
        expect(await rows()).to.equal(51);
        await attempts.count('late'.padEnd(64, '0'), later, window);
        expect(await rows()).to.equal(1);
      } finally {
        await database.close();
        await scratch.drop();
      }
    });
  });
});
