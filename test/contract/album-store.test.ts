import { MikroOrmAlbumStore } from '../../src/adapters/persistence/mikro-orm-album-store.js';
import { InMemoryAlbumStore } from '../fakes/in-memory-album-store.js';
import { openTestDatabase, sql, type Engine } from '../support/databases.js';
import { describeWithPostgres } from '../support/postgres.js';
import { describeAlbumStoreContract } from './album-store.contract.js';

describeAlbumStoreContract('in-memory fake', async () => {
  const harness = {
    store: new InMemoryAlbumStore(),
    reset: async () => void (harness.store = new InMemoryAlbumStore()),
    close: async () => undefined,
  };
  return harness;
});

const onDatabase = async (engine: Engine) => {
  const opened = await openTestDatabase(engine, 'chat-albums');
  return {
    store: new MikroOrmAlbumStore(opened.database),
    replica: new MikroOrmAlbumStore(opened.replica),
    reset: async () => void (await sql(opened.database, 'delete from chat_album_items')),
    close: () => opened.close(),
  };
};

describeAlbumStoreContract('MikroORM on PGlite', () => onDatabase('pglite'));

describeWithPostgres('AlbumStore on PostgreSQL', () => {
  describeAlbumStoreContract('MikroORM on PostgreSQL (two replicas: two pools on one database)', () => onDatabase('postgresql'));
});
