import { MikroOrmPollerLease } from '../../src/adapters/persistence/mikro-orm-poller-lease.js';
import { InMemoryPollerLease } from '../fakes/in-memory-poller-lease.js';
import { openTestDatabase, sql, type Engine } from '../support/databases.js';
import { describeWithPostgres } from '../support/postgres.js';
import { describePollerLeaseContract } from './poller-lease.contract.js';

describePollerLeaseContract('in-memory fake', async () => {
  const harness = {
    lease: new InMemoryPollerLease(),
    reset: async () => void (harness.lease = new InMemoryPollerLease()),
    close: async () => undefined,
  };
  return harness;
});

const onDatabase = async (engine: Engine) => {
  const opened = await openTestDatabase(engine, 'poller-leases');
  return {
    lease: new MikroOrmPollerLease(opened.database),
    replica: new MikroOrmPollerLease(opened.replica),
    reset: async () => void (await sql(opened.database, 'delete from poller_leases')),
    close: () => opened.close(),
  };
};

describePollerLeaseContract('MikroORM on PGlite', () => onDatabase('pglite'));

describeWithPostgres('PollerLease on PostgreSQL', () => {
  describePollerLeaseContract('MikroORM on PostgreSQL (two replicas: two pools on one database)', () => onDatabase('postgresql'));
});
