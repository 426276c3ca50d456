import { join } from 'node:path';
import { PgBossTaskQueue, type QueueConnection } from '../../src/adapters/queue/pg-boss-task-queue.js';
import { PinoLogger, createPino } from '../../src/adapters/logging/pino-logger.js';
import { copyTree, emptyPgliteDir, openPglite, sharedOnce } from '../support/data-dirs.js';
import { tempDir } from '../support/gateway-process.js';
import { createScratchDatabase } from '../support/postgres.js';
import { waitFor } from '../support/http.js';
import { expect } from 'chai';
import { drained, type TaskQueueHarness } from './task-queue.contract.js';

/**
 * What the pg-boss task queue's test files share (task-queue.test.ts: the contract on PGlite and
 * in memory; task-queue-postgres.test.ts: on PostgreSQL; task-queue-pglite.test.ts: what only the
 * embedded database does): the settings, the harness, and the suites run on both engines. Three
 * files, so that the parallel test run spreads them over its workers.
 */
export const logger = new PinoLogger(createPino('silent'));
export const settings = {
  queues: ['q', 'other', 'short'],
  orderedQueues: ['ordered', 'ordered-short'],
  // The queues whose tasks may run 1 s (see the contract's harness).
  runningTaskSeconds: { short: 1, 'ordered-short': 1 },
  concurrency: 2,
  heartbeatSeconds: 10,
  superviseIntervalSeconds: 1,
  pollingIntervalSeconds: 0.5,
  retryLimit: 2,
  retryDelaySeconds: 0,
};

export const harnessOn = (connect: () => Promise<{ connection: QueueConnection; dispose(): Promise<void> }>): TaskQueueHarness => {
  let current: PgBossTaskQueue | undefined;
  let replicas: PgBossTaskQueue[] = [];
  let store: Awaited<ReturnType<typeof connect>> | undefined;
  return {
    replica: async () => {
      const replica = await PgBossTaskQueue.start(store!.connection, settings, logger);
      replicas.push(replica);
      return replica;
    },
    open: async () => {
      store = await connect();
      current = await PgBossTaskQueue.start(store.connection, settings, logger);
      return current;
    },
    reopen: async () => {
      await current!.stop(1000);
      current = await PgBossTaskQueue.start(store!.connection, settings, logger);
      return current;
    },
    close: async () => {
      for (const replica of replicas) await replica.stop(1000);
      replicas = [];
      await current?.stop(1000);
      await store?.dispose();
    },
  };
};

let storeTemplate: Promise<string> | undefined;

/**
 * A PGlite directory of its own for each test, where the task queue's schema and queues already
 * exist: the queue was started once on a template (then stopped, no task stored), which is copied.
 * The template is made once per test run (sharedOnce: task-queue.test.ts and
 * task-queue-pglite.test.ts run in different workers), not once per file.
 */
export const queueStoreDir = async (): Promise<string> => {
  storeTemplate ??= sharedOnce('template-queue', async () => {
    const dir = await emptyPgliteDir('queue-template');
    const pglite = await openPglite(dir);
    try {
      await (await PgBossTaskQueue.start({ pglite }, settings, logger)).stop(1000);
    } finally {
      await pglite.close();
    }
    return dir;
  });
  const dir = join(await tempDir('queue'), 'pglite');
  await copyTree(await storeTemplate, dir);
  return dir;
};

/** A store on PGlite (its own thread, as the service runs it), made from the template. */
export const pgliteStore = async (): Promise<{ connection: QueueConnection; dispose(): Promise<void> }> => {
  const pglite = await openPglite(await queueStoreDir());
  return { connection: { pglite }, dispose: () => pglite.close() };
};

/** A store on a scratch PostgreSQL database, dropped by `dispose`. */
export const postgresStore = async (): Promise<{ connection: QueueConnection; dispose(): Promise<void> }> => {
  const scratch = await createScratchDatabase();
  return { connection: { connectionString: scratch.url }, dispose: () => scratch.drop() };
};

/**
 * A task this process stores wakes its own idle worker of that queue: with workers that poll
 * once an hour, a task queued after their first (empty) fetch still runs at once. Without the
 * wake-up it would wait for the next poll, an hour away, and the test would time out.
 */
export const describeWakeUp = (engine: string, connect: () => Promise<{ connection: QueueConnection; dispose(): Promise<void> }>): void => {
  describe(`pg-boss on ${engine}: a task this process queues starts at once, not at the next poll`, function () {
    this.timeout(60_000);
    const hourly = { ...settings, pollingIntervalSeconds: 3600 };

    const cases = [
      { what: 'a standard queue', queue: 'q', options: {} },
      { what: 'an ordered queue', queue: 'ordered', options: { group: 'chat-1' } },
      { what: 'a queue worked with a bound on tasks running at once', queue: 'other', options: {}, work: { maxConcurrent: 2 } },
    ];
    for (const { what, queue: name, options, work } of cases) {
      it(`wakes the idle worker of ${what}`, async () => {
        const store = await connect();
        let queue: PgBossTaskQueue | undefined;
        try {
          queue = await PgBossTaskQueue.start(store.connection, hourly, logger);
          const ran: number[] = [];
          await queue.work(
            name,
            async (task: { n: number }) => {
              ran.push(task.n);
            },
            work,
          );
          // Task 1 ran: the worker has fetched. Task 2 is queued after that fetch, so only a
          // wake-up brings it before the worker's next poll, an hour later.
          await queue.enqueue(name, { n: 1 }, options);
          await waitFor(() => ran.length === 1, 20_000, 'the first task');
          await queue.enqueue(name, { n: 2 }, options);
          await waitFor(() => ran.length === 2, 20_000, 'the task queued while the worker waited for its next poll');
          expect(ran).to.deep.equal([1, 2]);
        } finally {
          await queue?.stop(1000);
          await store.dispose();
        }
      });
    }
  });
};

/** A store the early-settlement tests open twice, and can ask how many of its tasks are in each state. */
export interface InspectableStore {
  readonly connection: QueueConnection;
  /** How many tasks of queue `q` are in each pg-boss state (created, retry, active, completed, failed…). */
  states(): Promise<Record<string, number>>;
  dispose(): Promise<void>;
}

export const STATES_SQL = "SELECT state::text AS state, count(*)::int AS n FROM pgboss.job WHERE name = 'q' GROUP BY state";
export const byState = (rows: ReadonlyArray<{ state: string; n: number }>): Record<string, number> =>
  Object.fromEntries(rows.map((row) => [row.state, Number(row.n)]));

/**
 * A worker takes up to 10 tasks at once, and pg-boss settles a batch only when all of it has
 * ended; a stop past its grace (pg-boss's failWip) or a killed process fails every task of the
 * batch still active. A task that ended beside a long one (a 40-minute command) must be settled
 * as it ends, so that only the long one runs again.
 */
export const describeEarlySettlement = (
  engine: string,
  ends: ReadonlyArray<'stopped past its grace' | 'killed'>,
  connect: () => Promise<InspectableStore>,
): void => {
  describe(`pg-boss on ${engine}: the tasks of a batch that ended while a long one of it runs`, function () {
    this.timeout(60_000);
    // One worker, so that the ten tasks are one batch; no monitor: only the stop or the next start retries a task.
    const oneWorker = { ...settings, concurrency: 1, superviseIntervalSeconds: 3600 };
    const cases = [
      { what: 'a standard queue', work: {}, group: (_n: number): string | undefined => undefined },
      { what: 'a standard queue whose groups run one at a time', work: { oneAtATimePerGroup: true }, group: (n: number) => (n === 0 ? 'long' : `g${n % 3}`) },
    ];
    for (const end of ends)
      for (const { what, work, group } of cases) {
        it(`are completed while it runs, and when its process is ${end} only the long one runs again (${what})`, async () => {
          const store = await connect();
          let release = (): void => undefined;
          const gate = new Promise<void>((resolve) => (release = resolve));
          const runs: Array<[number, number]> = [];
          const finished = new Set<number>();
          const handler = async (task: { n: number }, meta: { attempt: number }): Promise<void> => {
            runs.push([task.n, meta.attempt]);
            // Task 0's first attempt runs until the end of the test: the long one.
            if (task.n === 0 && meta.attempt === 1) await gate;
            else finished.add(task.n);
          };
          let first: PgBossTaskQueue | undefined;
          let second: PgBossTaskQueue | undefined;
          try {
            first = await PgBossTaskQueue.start(store.connection, oneWorker, logger);
            // Stored in one insert before the worker starts: its first fetch takes all ten.
            await Promise.all(Array.from({ length: 10 }, (_, n) => first!.enqueue('q', { n }, { group: group(n) })));
            await first.work('q', handler, work);
            await waitFor(() => finished.size === 9 && runs.some(([n]) => n === 0), 20_000, 'the nine short tasks ended, the long one running');
            // Completed in the store while the long task of their batch still runs.
            await waitFor(async () => (await store.states()).completed === 9, 20_000, 'the nine short tasks completed in the store');
            expect(await store.states(), 'the long one still active').to.deep.equal({ active: 1, completed: 9 });
            expect((await first.depth()).q, 'the long one only').to.equal(1);

            if (end === 'stopped past its grace') {
              await first.stop(50);
              first = undefined;
              expect(await store.states(), 'the long one failed by the stop, for a retry').to.deep.equal({ retry: 1, completed: 9 });
            }
            // Killed: no stop; the next start on the embedded database fails what it left running.
            second = await PgBossTaskQueue.start(store.connection, oneWorker, logger);
            await second.work('q', handler, work);
            await waitFor(() => runs.some(([n, attempt]) => n === 0 && attempt === 2), 20_000, "the long task's second attempt");
            await drained(second);
            expect(
              [...runs].sort(([a, x], [b, y]) => a - b || x - y),
              'each short task once, the long one twice',
            ).to.deep.equal([[0, 1], [0, 2], ...Array.from({ length: 9 }, (_, i): [number, number] => [i + 1, 1])]);
          } finally {
            release();
            await second?.stop(1000);
            await first?.stop(1);
            await store.dispose();
          }
        });
      }
  });
};
