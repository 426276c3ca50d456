import { EnvironmentBotTokenStore } from '../../src/adapters/secrets/environment-bot-token-store.js';
import { MikroOrmBotTokenStore } from '../../src/adapters/persistence/mikro-orm-bot-token-store.js';
import { InMemoryBotTokenStore, type BotRegistration } from '../fakes/in-memory-bot-token-store.js';
import { openTestDatabase, sql, type Engine } from '../support/databases.js';
import { describeWithPostgres } from '../support/postgres.js';
import { describeBotTokenStoreContract } from './bot-token-store.contract.js';

describeBotTokenStoreContract('in-memory fake', async () => {
  let storage: { registered?: BotRegistration } = {};
  return {
    store: (configured) => new InMemoryBotTokenStore(configured, undefined, storage),
    reset: async () => void (storage = {}),
    close: async () => undefined,
  };
});

describeBotTokenStoreContract('the configured token of a channel without registration (environment)', async () => ({
  store: (configured) => new EnvironmentBotTokenStore(configured),
  reset: async () => undefined,
  close: async () => undefined,
  registers: false,
}));

const onDatabase = async (engine: Engine) => {
  const opened = await openTestDatabase(engine, 'bot-tokens');
  let next = 0;
  return {
    // Alternately on either pool (on PostgreSQL two replicas).
    store: (configured: string | undefined) => new MikroOrmBotTokenStore(next++ % 2 === 0 ? opened.database : opened.replica, configured),
    reset: async () => void (await sql(opened.database, "delete from settings where key like 'messaging.%'")),
    close: () => opened.close(),
  };
};

describeBotTokenStoreContract('MikroORM on PGlite', () => onDatabase('pglite'));

describeWithPostgres('BotTokenStore on PostgreSQL', () => {
  describeBotTokenStoreContract('MikroORM on PostgreSQL (two replicas: two pools on one database)', () => onDatabase('postgresql'));
});
