import { MikroOrmAdminStore } from '../../src/adapters/persistence/mikro-orm-admin-store.js';
import { InMemoryAdminStore } from '../fakes/in-memory-admin-store.js';
import { openTestDatabase, sql, type Engine } from '../support/databases.js';
import { describeWithPostgres } from '../support/postgres.js';
import { describeAdminStoreContract } from './admin-store.contract.js';

describeAdminStoreContract('in-memory fake', async () => {
  const harness = {
    store: new InMemoryAdminStore(),
    reset: async () => void (harness.store = new InMemoryAdminStore()),
    close: async () => undefined,
  };
  return harness;
});

const onDatabase = async (engine: Engine) => {
  const opened = await openTestDatabase(engine, 'admin-store');
  return {
    store: new MikroOrmAdminStore(opened.database),
    replica: new MikroOrmAdminStore(opened.replica),
    reset: async () => {
      await sql(opened.database, 'delete from admin_sessions');
      await sql(opened.database, "delete from settings where key like 'admin.%'");
    },
    close: () => opened.close(),
  };
};

describeAdminStoreContract('MikroORM on PGlite', () => onDatabase('pglite'));

describeWithPostgres('AdminStore on PostgreSQL', () => {
  describeAdminStoreContract('MikroORM on PostgreSQL (two replicas: two pools on one database)', () => onDatabase('postgresql'));
});
