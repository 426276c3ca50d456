import { PinoLogger, createPino } from '../../src/adapters/logging/pino-logger.js';
import { dataDirFor } from '../support/databases.js';
import { Database } from '../../src/adapters/persistence/database.js';
import { MikroOrmInboundRequestStore } from '../../src/adapters/persistence/mikro-orm-inbound-request-store.js';
import { InMemoryInboundRequestStore } from '../fakes/in-memory-inbound-request-store.js';
import { createScratchDatabase, describeWithPostgres } from '../support/postgres.js';
import { describeInboundRequestStoreContract } from './inbound-request-store.contract.js';

const logger = new PinoLogger(createPino('silent'));

describeInboundRequestStoreContract('in-memory fake', async () => ({ store: new InMemoryInboundRequestStore(), close: async () => undefined }));

const onDatabase = async (databaseUrl: string | undefined, drop: () => Promise<void>) => {
  const database = await Database.open({ databaseUrl, dataDir: await dataDirFor(databaseUrl, 'inbound-requests'), logger });
  await database.migrate();
  return {
    store: new MikroOrmInboundRequestStore(database),
    close: async () => {
      await database.close();
      await drop();
    },
  };
};

describeInboundRequestStoreContract('MikroORM on PGlite', () => onDatabase(undefined, async () => undefined));

describeWithPostgres('InboundRequestStore on PostgreSQL', () => {
  describeInboundRequestStoreContract('MikroORM on PostgreSQL', async () => {
    const scratch = await createScratchDatabase();
    return onDatabase(scratch.url, () => scratch.drop());
  });
});
