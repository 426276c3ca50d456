import { CachingConversationStore } from '../../src/adapters/persistence/caching-conversation-store.js';
import { MikroOrmConversationStore } from '../../src/adapters/persistence/mikro-orm-conversation-store.js';
import { InMemoryConversationStore } from '../fakes/in-memory-conversation-store.js';
import { openTestDatabase, sql, type Engine } from '../support/databases.js';
import { describeWithPostgres } from '../support/postgres.js';
import { describeConversationStoreContract } from './conversation-store.contract.js';

describeConversationStoreContract('in-memory fake', async () => {
  const harness = {
    store: new InMemoryConversationStore(),
    backdate: async (threadId: string, at: Date) => harness.store.backdate(threadId, at),
    reset: async () => harness.store.threads.clear(),
    close: async () => undefined,
  };
  return harness;
});

const onDatabase = async (engine: Engine, cached = false) => {
  const opened = await openTestDatabase(engine, 'conversations');
  const { database } = opened;
  const make = () => (cached ? new CachingConversationStore(new MikroOrmConversationStore(database), 4) : new MikroOrmConversationStore(database));
  const harness = {
    store: make(),
    backdate: async (threadId: string, at: Date) => void (await sql(database, 'update chat_turns set created_at = ? where thread_id = ?', [at, threadId])),
    reset: async () => {
      await sql(database, 'truncate chat_turns');
      // a new cache too: the truncate went around it
      harness.store = make();
    },
    close: () => opened.close(),
  };
  return harness;
};

describeConversationStoreContract('MikroORM on PGlite', () => onDatabase('pglite'));
// keeping 4 turns in memory: the suite reads more and fewer than that
describeConversationStoreContract('MikroORM on PGlite behind the in-memory cache (embedded engine)', () => onDatabase('pglite', true));

describeWithPostgres('ConversationStore on PostgreSQL', () => {
  describeConversationStoreContract('MikroORM on PostgreSQL', () => onDatabase('postgresql'));
});
