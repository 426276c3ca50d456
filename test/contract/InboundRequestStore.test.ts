import { PinoLogger, createPino } from '../../src/adapters/logging/PinoLogger.js';
import { Database } from '../../src/adapters/persistence/Database.js';
import { MikroOrmInboundRequestStore } from '../../src/adapters/persistence/MikroOrmInboundRequestStore.js';
import { InMemoryInboundRequestStore } from '../fakes/InMemoryInboundRequestStore.js';
import { tempDir } from '../support/gatewayProcess.js';
import { createScratchDatabase, describeWithPostgres } from '../support/postgres.js';
import { describeInboundRequestStoreContract } from './InboundRequestStore.contract.js';

const logger = new PinoLogger(createPino('silent'));

describeInboundRequestStoreContract('in-memory fake', async () => ({ store: new InMemoryInboundRequestStore(), close: async () => undefined }));

const onDatabase = async (databaseUrl: string | undefined, drop: () => Promise<void>) => {
  const database = await Database.open({ databaseUrl, dataDir: await tempDir('inbound-requests'), logger });
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
