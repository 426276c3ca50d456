import pg from 'pg';
import { PinoLogger, createPino } from '../../src/adapters/logging/PinoLogger.js';
import { Database } from '../../src/adapters/persistence/Database.js';
import { MikroOrmKeyRepository } from '../../src/adapters/persistence/MikroOrmKeyRepository.js';
import { InMemoryKeyRepository } from '../fakes/InMemoryKeyRepository.js';
import { tempDir } from '../support/gatewayProcess.js';
import { createScratchDatabase, postgres } from '../support/postgres.js';
import { describeKeyRepositoryContract } from './KeyRepository.contract.js';

const logger = new PinoLogger(createPino('silent'));

describeKeyRepositoryContract(
  'in-memory fake',
  async () => {
    const harness = {
      repository: new InMemoryKeyRepository(),
      reset: async () => void (harness.repository = new InMemoryKeyRepository()),
      close: async () => undefined,
    };
    return harness;
  },
  { deletionElsewhere: false },
);

describeKeyRepositoryContract('MikroORM on PGlite', async () => {
  const database = await Database.open({ databaseUrl: undefined, dataDir: await tempDir('keys'), logger });
  await database.migrate();
  const repository = new MikroOrmKeyRepository(database);
  await repository.start();
  return {
    repository,
    // PGlite is single-process: "elsewhere" is raw SQL on the same database, outside the repository.
    deleteElsewhere: async (id) => void (await database.execute('delete from api_keys where id = ?', [id])),
    reset: async () => void (await database.execute('truncate api_keys')),
    close: async () => {
      await repository.stop();
      await database.close();
    },
  };
}, { deletionElsewhere: true });

if (postgres.available) {
  describeKeyRepositoryContract('MikroORM on PostgreSQL', async () => {
    const scratch = await createScratchDatabase();
    const database = await Database.open({ databaseUrl: scratch.url, dataDir: await tempDir('keys'), logger });
    await database.migrate();
    const repository = new MikroOrmKeyRepository(database);
    await repository.start();
    return {
      repository,
      deleteElsewhere: async (id) => {
        const client = new pg.Client({ connectionString: scratch.url });
        await client.connect();
        await client.query('delete from api_keys where id = $1', [id]);
        await client.end();
      },
      reset: async () => void (await database.execute('truncate api_keys')),
      close: async () => {
        await repository.stop();
        await database.close();
        await scratch.drop();
      },
    };
  }, { deletionElsewhere: true });
} else {
  describe.skip(`KeyRepository contract: MikroORM on PostgreSQL — pending: ${postgres.reason}`, () => {
    it('runs when PostgreSQL is reachable');
  });
}
