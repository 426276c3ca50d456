import { MikroOrmActionRunRepository } from '../../src/adapters/persistence/mikro-orm-action-run-repository.js';
import { InMemoryActionRunRepository } from '../fakes/in-memory-action-run-repository.js';
import { openTestDatabase, sql, type Engine } from '../support/databases.js';
import { describeWithPostgres } from '../support/postgres.js';
import { describeActionRunRepositoryContract } from './action-run-repository.contract.js';

describeActionRunRepositoryContract('in-memory fake', async () => {
  const harness = {
    repository: new InMemoryActionRunRepository(),
    reset: async () => void (harness.repository = new InMemoryActionRunRepository()),
    close: async () => undefined,
  };
  return harness;
});

const onDatabase = async (engine: Engine) => {
  const opened = await openTestDatabase(engine, 'action-runs');
  return {
    repository: new MikroOrmActionRunRepository(opened.database),
    replica: new MikroOrmActionRunRepository(opened.replica),
    reset: async () => void (await sql(opened.database, 'delete from action_runs')),
    close: () => opened.close(),
  };
};

describeActionRunRepositoryContract('MikroORM on PGlite', () => onDatabase('pglite'));

describeWithPostgres('ActionRunRepository on PostgreSQL', () => {
  describeActionRunRepositoryContract('MikroORM on PostgreSQL (two replicas: two pools on one database)', () => onDatabase('postgresql'));
});
