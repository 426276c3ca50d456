import { PinoLogger, createPino } from '../../src/adapters/logging/pino-logger.js';
import { dataDirFor } from '../support/databases.js';
import { Database } from '../../src/adapters/persistence/database.js';
import { MikroOrmScheduleRunRepository } from '../../src/adapters/persistence/mikro-orm-schedule-run-repository.js';
import { InMemoryScheduleRunRepository } from '../fakes/in-memory-schedule-run-repository.js';
import { createScratchDatabase, describeWithPostgres } from '../support/postgres.js';
import { describeScheduleRunRepositoryContract } from './schedule-run-repository.contract.js';

const logger = new PinoLogger(createPino('silent'));

describeScheduleRunRepositoryContract('in-memory fake', async () => ({ runs: new InMemoryScheduleRunRepository(), close: async () => undefined }));

const onDatabase = async (databaseUrl: string | undefined, drop: () => Promise<void>) => {
  const database = await Database.open({ databaseUrl, dataDir: await dataDirFor(databaseUrl, 'schedule-runs'), logger });
  await database.migrate();
  return {
    runs: new MikroOrmScheduleRunRepository(database),
    close: async () => {
      await database.close();
      await drop();
    },
  };
};

describeScheduleRunRepositoryContract('MikroORM on PGlite', () => onDatabase(undefined, async () => undefined));

describeWithPostgres('ScheduleRunRepository on PostgreSQL', () => {
  describeScheduleRunRepositoryContract('MikroORM on PostgreSQL', async () => {
    const scratch = await createScratchDatabase();
    return onDatabase(scratch.url, () => scratch.drop());
  });
});
