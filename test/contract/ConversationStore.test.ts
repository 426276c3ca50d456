import { PinoLogger, createPino } from '../../src/adapters/logging/PinoLogger.js';
import { Database } from '../../src/adapters/persistence/Database.js';
import { CachingConversationStore } from '../../src/adapters/persistence/CachingConversationStore.js';
import { MikroOrmConversationStore } from '../../src/adapters/persistence/MikroOrmConversationStore.js';
import { InMemoryConversationStore } from '../fakes/InMemoryConversationStore.js';
import { tempDir } from '../support/gatewayProcess.js';
import { createScratchDatabase, describeWithPostgres } from '../support/postgres.js';
import { describeConversationStoreContract } from './ConversationStore.contract.js';
import { sql } from '../support/databases.js';

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
    store: cached ? new CachingConversationStore(new MikroOrmConversationStore(database), 4) : new MikroOrmConversationStore(database),
    reset: async () => {
      await sql(database, 'truncate chat_turns');
      // a new cache too: the truncate went around it
      if (cached) harness.store = new CachingConversationStore(new MikroOrmConversationStore(database), 4);
    },
    close: async () => {
      await database.close();
      await drop();
    },
  };
  return harness;
};

describeConversationStoreContract('MikroORM on PGlite', () => onDatabase(undefined, async () => undefined));
// keeping 4 turns in memory: the suite reads more and fewer than that
describeConversationStoreContract('MikroORM on PGlite behind the in-memory cache (embedded engine)', () => onDatabase(undefined, async () => undefined, true));

describeWithPostgres('ConversationStore on PostgreSQL', () => {
  describeConversationStoreContract('MikroORM on PostgreSQL', async () => {
    const scratch = await createScratchDatabase();
    return onDatabase(scratch.url, () => scratch.drop());
  });
});
