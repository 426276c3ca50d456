import { MikroOrmIdempotencyKeyStore } from '../../src/adapters/persistence/mikro-orm-idempotency-key-store.js';
import { InMemoryIdempotencyKeyStore } from '../fakes/in-memory-idempotency-key-store.js';
import { openTestDatabase, sql, type Engine } from '../support/databases.js';
import { describeWithPostgres } from '../support/postgres.js';
import { describeIdempotencyKeyStoreContract } from './idempotency-key-store.contract.js';

describeIdempotencyKeyStoreContract('in-memory fake', async () => {
  const harness = {
    store: new InMemoryIdempotencyKeyStore(),
    reset: async () => void (harness.store = new InMemoryIdempotencyKeyStore()),
    close: async () => undefined,
  };
  return harness;
});

const onDatabase = async (engine: Engine) => {
  const opened = await openTestDatabase(engine, 'idempotency');
  return {
    store: new MikroOrmIdempotencyKeyStore(opened.database),
    replica: new MikroOrmIdempotencyKeyStore(opened.replica),
    reset: async () => void (await sql(opened.database, 'delete from idempotency_keys')),
    close: () => opened.close(),
  };
};

describeIdempotencyKeyStoreContract('MikroORM on PGlite', () => onDatabase('pglite'));

describeWithPostgres('IdempotencyKeyStore on PostgreSQL', () => {
  describeIdempotencyKeyStoreContract('MikroORM on PostgreSQL (two replicas: two pools on one database)', () => onDatabase('postgresql'));
});
