import { PinoLogger, createPino } from '../../src/adapters/logging/PinoLogger.js';
import { Database } from '../../src/adapters/persistence/Database.js';
import { CachingConversationStore } from '../../src/adapters/persistence/CachingConversationStore.js';
import { SqlConversationStore } from '../../src/adapters/persistence/SqlConversationStore.js';
import { InMemoryConversationStore } from '../fakes/InMemoryConversationStore.js';
import { tempDir } from '../support/gatewayProcess.js';
import { createScratchDatabase, describeWithPostgres } from '../support/postgres.js';
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

const onDatabase = async (databaseUrl: string | undefined, drop: () => Promise<void>, cached = false) => {
  const database = await Database.open({ databaseUrl, dataDir: await tempDir('conversations'), logger });
  await database.migrate();
  const harness = {
    store: cached ? new CachingConversationStore(new SqlConversationStore(database), 4) : new SqlConversationStore(database),
    reset: async () => {
      await database.execute('truncate chat_turns');
      // a new cache too: the truncate went around it
      if (cached) harness.store = new CachingConversationStore(new SqlConversationStore(database), 4);
    },
    close: async () => {
      await database.close();
      await drop();
    },
  };
  return harness;
};

describeConversationStoreContract('SQL on PGlite', () => onDatabase(undefined, async () => undefined));
// keeping 4 turns in memory: the suite reads more and fewer than that
describeConversationStoreContract('SQL on PGlite behind the in-memory cache (embedded engine)', () => onDatabase(undefined, async () => undefined, true));

describeWithPostgres('ConversationStore on PostgreSQL', () => {
  describeConversationStoreContract('SQL on PostgreSQL', async () => {
    const scratch = await createScratchDatabase();
    return onDatabase(scratch.url, () => scratch.drop());
  });
});
