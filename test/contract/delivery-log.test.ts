import { MikroOrmDeliveryLog } from '../../src/adapters/persistence/mikro-orm-delivery-log.js';
import { InMemoryDeliveryLog } from '../fakes/in-memory-delivery-log.js';
import { openTestDatabase, sql, type Engine } from '../support/databases.js';
import { describeWithPostgres } from '../support/postgres.js';
import { describeDeliveryLogContract } from './delivery-log.contract.js';

describeDeliveryLogContract('in-memory fake', async () => {
  const harness = {
    log: new InMemoryDeliveryLog(),
    backdate: async (deliveryId: string, at: Date) => harness.log.backdate(deliveryId, at),
    reset: async () => void (harness.log = new InMemoryDeliveryLog()),
    close: async () => undefined,
  };
  return harness;
});

const onDatabase = async (engine: Engine) => {
  const opened = await openTestDatabase(engine, 'deliveries');
  return {
    log: new MikroOrmDeliveryLog(opened.database),
    replica: new MikroOrmDeliveryLog(opened.replica),
    backdate: async (deliveryId: string, at: Date) =>
      void (await sql(opened.database, 'update codehost_deliveries set received_at = ? where delivery_id = ?', [at, deliveryId])),
    reset: async () => void (await sql(opened.database, 'delete from codehost_deliveries')),
    close: () => opened.close(),
  };
};

describeDeliveryLogContract('MikroORM on PGlite', () => onDatabase('pglite'));

describeWithPostgres('DeliveryLog on PostgreSQL', () => {
  describeDeliveryLogContract('MikroORM on PostgreSQL (two replicas: two pools on one database)', () => onDatabase('postgresql'));
});
