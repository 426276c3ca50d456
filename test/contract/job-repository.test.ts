import { MikroOrmJobRepository } from '../../src/adapters/persistence/mikro-orm-job-repository.js';
import { NotifyingJobRepository } from '../../src/application/jobs/notifying-job-repository.js';
import { InMemoryJobRepository } from '../fakes/in-memory-job-repository.js';
import { RecordingLogger } from '../fakes/recording-logger.js';
import { openTestDatabase, sql, type Engine } from '../support/databases.js';
import { describeWithPostgres } from '../support/postgres.js';
import { describeJobRepositoryContract } from './job-repository.contract.js';

describeJobRepositoryContract('in-memory fake', async () => {
  const harness = {
    repository: new InMemoryJobRepository(),
    reset: async () => void (harness.repository = new InMemoryJobRepository()),
    close: async () => undefined,
  };
  return harness;
});

const onDatabase = async (engine: Engine) => {
  const opened = await openTestDatabase(engine, 'jobs');
  return {
    repository: new MikroOrmJobRepository(opened.database),
    replica: new MikroOrmJobRepository(opened.replica),
    reset: async () => void (await sql(opened.database, 'delete from jobs'), await sql(opened.database, 'delete from job_merge_commits')),
    close: () => opened.close(),
  };
};

describeJobRepositoryContract('MikroORM on PGlite', () => onDatabase('pglite'));

// The service's repository: the chat-notifying decorator over MikroORM (container/bindings/job-bindings.ts).
describeJobRepositoryContract('notifying decorator (chat jobs) over MikroORM on PGlite', async () => {
  const opened = await openTestDatabase('pglite', 'jobs-notifying');
  const notifying = (database: typeof opened.database) =>
    new NotifyingJobRepository(new MikroOrmJobRepository(database), async () => undefined, new RecordingLogger());
  return {
    repository: notifying(opened.database),
    replica: notifying(opened.replica),
    reset: async () => void (await sql(opened.database, 'delete from jobs'), await sql(opened.database, 'delete from job_merge_commits')),
    close: () => opened.close(),
  };
});

describeWithPostgres('JobRepository on PostgreSQL', () => {
  describeJobRepositoryContract('MikroORM on PostgreSQL (two replicas: two pools on one database)', () => onDatabase('postgresql'));
});
