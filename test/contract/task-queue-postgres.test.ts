import pg from 'pg';
import { createScratchDatabase, describeWithPostgres, type ScratchDatabase } from '../support/postgres.js';
import { describeTaskQueueContract } from './task-queue.contract.js';
import { byState, describeEarlySettlement, describeWakeUp, harnessOn, postgresStore, STATES_SQL } from './task-queue.harness.js';

// The pg-boss task queue on PostgreSQL (task-queue.test.ts: on PGlite).
describeWithPostgres('pg-boss on PostgreSQL', () => {
  describeTaskQueueContract('pg-boss on PostgreSQL', () => harnessOn(postgresStore));
});

describeWithPostgres('pg-boss on PostgreSQL: wake-ups', () => {
  describeWakeUp('PostgreSQL', postgresStore);
});

describeWithPostgres('pg-boss on PostgreSQL: early settlement', () => {
  // Killed is left out: on PostgreSQL another replica may hold the task, and only its heartbeat decides.
  describeEarlySettlement('PostgreSQL', ['stopped past its grace'], async () => {
    const scratch: ScratchDatabase = await createScratchDatabase();
    return {
      connection: { connectionString: scratch.url },
      states: async () => {
        const client = new pg.Client({ connectionString: scratch.url });
        await client.connect();
        try {
          return byState((await client.query<{ state: string; n: number }>(STATES_SQL)).rows);
        } finally {
          await client.end();
        }
      },
      dispose: () => scratch.drop(),
    };
  });
});
