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
});
