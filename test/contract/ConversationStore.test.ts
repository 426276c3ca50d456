import { PinoLogger, createPino } from '../../src/adapters/logging/PinoLogger.js';
import { Database } from '../../src/adapters/persistence/Database.js';
import { SqlConversationStore } from '../../src/adapters/persistence/SqlConversationStore.js';
import { InMemoryConversationStore } from '../fakes/InMemoryConversationStore.js';
import { tempDir } from '../support/gatewayProcess.js';
import { createScratchDatabase, postgres } from '../support/postgres.js';
import { describeConversationStoreContract } from './ConversationStore.contract.js';

const logger = new PinoLogger(createPino('silent'));

describeConversationStoreContract('in-memory fake', async () => {
  const harness = {
    store: new InMemoryConversationStore(),
    reset: async () => harness.store.threads.clear(),
    close: async () => undefined,
  };
  return harness;
});

const onDatabase = async (databaseUrl: string | undefined, drop: () => Promise<void>) => {
  const database = await Database.open({ databaseUrl, dataDir: await tempDir('conversations'), logger });
  await database.migrate();
  return {
    store: new SqlConversationStore(database),
    reset: async () => void (await database.execute('truncate chat_turns')),
    close: async () => {
      await database.close();
      await drop();
    },
  };
};

describeConversationStoreContract('SQL on PGlite', () => onDatabase(undefined, async () => undefined));

if (postgres.available) {
  describeConversationStoreContract('SQL on PostgreSQL', async () => {
    const scratch = await createScratchDatabase();
    return onDatabase(scratch.url, () => scratch.drop());
  });
} else {
  describe.skip(`ConversationStore contract: SQL on PostgreSQL — pending: ${postgres.reason}`, () => {
    it('runs when PostgreSQL is reachable');
  });
}
