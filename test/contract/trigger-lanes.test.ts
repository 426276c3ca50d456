import { MikroOrmTriggerLanes } from '../../src/adapters/persistence/mikro-orm-trigger-lanes.js';
import { InMemoryTriggerLanes } from '../fakes/in-memory-trigger-lanes.js';
import { openTestDatabase } from '../support/databases.js';
import { describeWithPostgres } from '../support/postgres.js';
import { describeTriggerLanesContract } from './trigger-lanes.contract.js';

describeTriggerLanesContract('in-memory fake', async () => ({ lanes: new InMemoryTriggerLanes(), close: async () => undefined }));

describeTriggerLanesContract('MikroORM on PGlite', async () => {
  const opened = await openTestDatabase('pglite', 'trigger-lanes');
  return { lanes: new MikroOrmTriggerLanes(opened.database), close: () => opened.close() };
});

describeWithPostgres('TriggerLanes on PostgreSQL', () => {
  describeTriggerLanesContract('MikroORM on PostgreSQL (two clients)', async () => {
    const opened = await openTestDatabase('postgresql', 'trigger-lanes');
    return { lanes: new MikroOrmTriggerLanes(opened.database), replica: new MikroOrmTriggerLanes(opened.replica), close: () => opened.close() };
  });
});
