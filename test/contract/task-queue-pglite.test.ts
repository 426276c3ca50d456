import { expect } from 'chai';
import { PgBossTaskQueue } from '../../src/adapters/queue/pg-boss-task-queue.js';
import type { PgliteThread } from '../../src/adapters/persistence/pglite/pglite-thread.js';
import { openPglite } from '../support/data-dirs.js';
import { waitFor } from '../support/http.js';
import { drained } from './task-queue.contract.js';
import { byState, describeEarlySettlement, describeWakeUp, logger, pgliteStore, queueStoreDir, settings, STATES_SQL } from './task-queue.harness.js';

// The pg-boss task queue on the embedded database, beyond the contract (task-queue.test.ts).

/**
 * A queue started on `pglite` whose task `{n: 1}` of queue `q` is running when this resolves;
 * `handler` is to keep its first attempt running for good, as a killed process leaves it.
 */
const queueWithTaskLeftRunning = async <T extends object>(
  pglite: PgliteThread,
  queueSettings: typeof settings,
  handler: (task: T, meta: { attempt: number }) => Promise<void>,
  started: () => boolean,
): Promise<PgBossTaskQueue> => {
  const queue = await PgBossTaskQueue.start({ pglite }, queueSettings, logger);
  await queue.enqueue('q', { n: 1 });
  await queue.work('q', handler);
  await waitFor(started, 20_000, 'the first attempt');
  return queue;
};

describe('pg-boss on PGlite (the embedded database, held by one process): tasks a killed process left running', function () {
  this.timeout(60_000);

  it('run again as soon as the queue starts again, not once their heartbeat has expired', async () => {
    // No monitor during the test: an expired heartbeat is never noticed, only the start can retry the task.
    const noMonitor = { ...settings, superviseIntervalSeconds: 3600 };
    const pglite = await openPglite(await queueStoreDir());
    const attempts: number[] = [];
    const handler = async (_task: object, meta: { attempt: number }): Promise<void> => {
      attempts.push(meta.attempt);
      // The first attempt never ends: its process "stops" with the task running.
      if (meta.attempt === 1) await new Promise(() => undefined);
    };
    let first: PgBossTaskQueue | undefined;
    let second: PgBossTaskQueue | undefined;
    try {
      first = await queueWithTaskLeftRunning(pglite, noMonitor, handler, () => attempts.length > 0);
      expect(attempts, 'the first attempt started').to.deep.equal([1]);
      // Killed, as far as the store can tell: no stop (a stop fails the tasks it leaves running).

      second = await PgBossTaskQueue.start({ pglite }, noMonitor, logger);
      await second.work('q', handler);
      await waitFor(() => attempts.length >= 2, 20_000, 'the second attempt');
      expect(attempts).to.deep.equal([1, 2]);
      await drained(second);
    } finally {
      await second?.stop(1000);
      await first?.stop(1);
      await pglite.close();
    }
  });
});

describe('pg-boss on PGlite: an ordered task a killed process left running on its last attempt', function () {
  this.timeout(60_000);

  it('is given up at the next start, so that its group goes on (a failed one would hold the group for days)', async () => {
    const lastAttempt = { ...settings, retryLimit: 0, superviseIntervalSeconds: 3600 };
    const pglite = await openPglite(await queueStoreDir());
    const ran: number[] = [];
    const handler = async (task: { n: number }): Promise<void> => {
      ran.push(task.n);
      // The first task never ends: its process "stops" with the task running.
      if (task.n === 1) await new Promise(() => undefined);
    };
    let first: PgBossTaskQueue | undefined;
    let second: PgBossTaskQueue | undefined;
    try {
      first = await PgBossTaskQueue.start({ pglite }, lastAttempt, logger);
      await first.enqueue('ordered', { n: 1 }, { group: 'g' });
      await first.work('ordered', handler);
      await waitFor(() => ran.length === 1, 20_000, 'the first task');
      // Killed, as far as the store can tell: no stop.
      second = await PgBossTaskQueue.start({ pglite }, lastAttempt, logger);
      await second.enqueue('ordered', { n: 2 }, { group: 'g' });
      await second.work('ordered', handler);
      await waitFor(() => ran.includes(2), 20_000, 'the next task of the group');
      expect(ran).to.deep.equal([1, 2]);
    } finally {
      await second?.stop(1000);
      await first?.stop(1);
      await pglite.close();
    }
  });
});

describe("pg-boss on PGlite: a group's tasks stored by consecutive inserts that share the database's time", function () {
  this.timeout(60_000);

  it('run in the order they were queued, though their keyed ids sort otherwise', async () => {
    const pglite = await openPglite(await queueStoreDir());
    let queue: PgBossTaskQueue | undefined;
    try {
      queue = await PgBossTaskQueue.start({ pglite }, settings, logger);
      // PGlite's clock keeps milliseconds, so inserts one after another often share a time. Here
      // every statement does: the queue's clock (pg-boss's job_now) stands still.
      await pglite.exec(
        `CREATE OR REPLACE FUNCTION pgboss.job_now() RETURNS timestamptz AS $$ SELECT timestamptz '${new Date(Date.now() - 3_600_000).toISOString()}' $$ LANGUAGE sql STABLE`,
      );
      // One insert each: every enqueue waits for the previous one's commit.
      for (let n = 0; n < 10; n++) expect(await queue.enqueue('ordered', { n }, { group: 'chat', key: `chat:update:${n}` })).to.be.a('string');
      const order: number[] = [];
      await queue.work<{ n: number }>('ordered', async (task) => void order.push(task.n), { oneAtATimePerGroup: true });
      await waitFor(() => order.length === 10, 30_000, 'order.length === 10');
      expect(order).to.deep.equal(Array.from({ length: 10 }, (_, n) => n));
    } finally {
      await queue?.stop(1000);
      await pglite.close();
    }
  });
});

describe('pg-boss on PGlite: a queue opened and used at once, before it has started (the service serves requests meanwhile)', function () {
  this.timeout(60_000);

  it('stores a task queued before the start finished, and runs it once workers start; an orphan of a killed process is still retried', async () => {
    const noMonitor = { ...settings, superviseIntervalSeconds: 3600 };
    const pglite = await openPglite(await queueStoreDir());
    const attempts: Array<[number, number]> = [];
    const handler = async (task: { n: number }, meta: { attempt: number }): Promise<void> => {
      attempts.push([task.n, meta.attempt]);
      // Task 1's first attempt never ends: its process is "killed" with it running.
      if (task.n === 1 && meta.attempt === 1) await new Promise(() => undefined);
    };
    let first: PgBossTaskQueue | undefined;
    let second: PgBossTaskQueue | undefined;
    try {
      first = await queueWithTaskLeftRunning(pglite, noMonitor, handler, () => attempts.length > 0);

      second = PgBossTaskQueue.open({ pglite }, noMonitor, logger);
      // Queued in the same turn as `open`: the start (several statements) cannot have finished.
      const queued = second.enqueue('q', { n: 2 });
      expect(await queued, 'the task id, once stored').to.be.a('string');
      expect((await second.depth()).q, 'task 1 (failed by the start, to be retried) and task 2').to.equal(2);
      await second.work('q', handler);
      await waitFor(() => attempts.length >= 3, 20_000, 'task 1 again and task 2');
      await drained(second);
      expect([...attempts].sort()).to.deep.equal([
        [1, 1],
        [1, 2],
        [2, 1],
      ]);
    } finally {
      await second?.stop(1000);
      await first?.stop(1);
      await pglite.close();
    }
  });

  it('a queue stopped before it was used starts nothing, and refuses a use afterwards', async () => {
    const pglite = await openPglite(await queueStoreDir());
    try {
      const queue = PgBossTaskQueue.open({ pglite }, settings, logger);
      await queue.stop(1000);
      const refused = await queue.enqueue('q', { n: 1 }).then(
        () => 'stored',
        (error: unknown) => (error as Error).message,
      );
      expect(refused).to.equal('The task queue was stopped before it started');
      const check = await PgBossTaskQueue.start({ pglite }, settings, logger);
      try {
        expect((await check.depth()).q, 'nothing stored').to.equal(0);
      } finally {
        await check.stop(1000);
      }
    } finally {
      await pglite.close();
    }
  });

  it('a start that fails makes every use reject with its error, and stopping the queue then succeeds', async () => {
    const pglite = await openPglite(await queueStoreDir());
    try {
      // 'q' exists as a standard queue: declaring it ordered is refused by the start.
      const queue = PgBossTaskQueue.open({ pglite }, { ...settings, queues: ['other'], orderedQueues: ['ordered', 'q'] }, logger);
      const refused = /Task queue q exists with policy standard/;
      /** The error a use of the queue rejects with ('resolved' when it does not reject). */
      const rejection = (use: Promise<unknown>): Promise<string> =>
        use.then(
          () => 'resolved',
          (error: unknown) => (error as Error).message,
        );
      const enqueued = rejection(queue.enqueue('other', { n: 1 }));
      expect(await rejection(queue.work('other', async () => undefined))).to.match(refused);
      expect(await enqueued).to.match(refused);
      expect(await rejection(queue.depth())).to.match(refused);
      await queue.stop(1000);
      // Nothing was stored by the queue that failed to start.
      const check = await PgBossTaskQueue.start({ pglite }, settings, logger);
      try {
        expect((await check.depth()).other).to.equal(0);
      } finally {
        await check.stop(1000);
      }
    } finally {
      await pglite.close();
    }
  });
});

describeWakeUp('PGlite', pgliteStore);
describe('pg-boss on PGlite: queue settings across starts', function () {
  this.timeout(60_000);

  /** The attempts one task whose handler always fails gets on `queue`, once the queue is empty again. */
  const attemptsOfAFailingTask = async (queue: PgBossTaskQueue): Promise<number[]> => {
    const attempts: number[] = [];
    await queue.enqueue('q', {});
    await queue.work('q', async (_task: object, meta: { attempt: number }) => {
      attempts.push(meta.attempt);
      throw new Error('fails every time');
    });
    await drained(queue);
    return attempts;
  };

  it('applies settings changed since the last start (a retry limit lowered to 0: a failing task runs once)', async () => {
    const pglite = await openPglite(await queueStoreDir()); // made with retryLimit 2
    let queue: PgBossTaskQueue | undefined;
    try {
      queue = await PgBossTaskQueue.start({ pglite }, { ...settings, retryLimit: 0 }, logger);
      expect(await attemptsOfAFailingTask(queue)).to.deep.equal([1]);
      await queue.stop(1000);
      // And back: started again with the template's settings, a failing task is tried 1 + 2 times.
      queue = await PgBossTaskQueue.start({ pglite }, settings, logger);
      expect(await attemptsOfAFailingTask(queue)).to.deep.equal([1, 2, 3]);
    } finally {
      await queue?.stop(1000);
      await pglite.close();
    }
  });

  it("a process that only stores tasks (the CLI's replay) leaves the service's queue settings alone, and refuses a queue the service has not made", async () => {
    const pglite = await openPglite(await queueStoreDir()); // made with retryLimit 2
    let queue: PgBossTaskQueue | undefined;
    try {
      queue = await PgBossTaskQueue.start({ pglite }, { ...settings, retryLimit: 0, finishedTaskSeconds: 60, manageQueues: false }, logger);
      const id = await queue.enqueue('q', { replayed: true });
      expect(id).to.be.a('string');
      const { rows } = await pglite.query<{ retry_limit: number; deletion_seconds: number }>(
        "select retry_limit, deletion_seconds from pgboss.queue where name = 'q'",
      );
      expect(rows).to.deep.equal([{ retry_limit: 2, deletion_seconds: 7 * 86_400 }]);
      await queue.stop(1000);
      queue = undefined;
      const failure = await PgBossTaskQueue.start({ pglite }, { ...settings, queues: [...settings.queues, 'new-one'], manageQueues: false }, logger).then(
        (started) => started.stop(1000).then(() => undefined),
        (error: Error) => error,
      );
      expect(failure?.message).to.equal('Task queue new-one does not exist: start the service on this database first (it creates its queues)');
    } finally {
      await queue?.stop(1000);
      await pglite.close();
    }
  });

  it('lets the tasks of a queue run as long as asked (a job as long as its time limit), the others 6 hours', async () => {
    const pglite = await openPglite(await queueStoreDir());
    let queue: PgBossTaskQueue | undefined;
    try {
      queue = await PgBossTaskQueue.start({ pglite }, { ...settings, runningTaskSeconds: { q: 86_000 } }, logger);
      const { rows } = await pglite.query<{ name: string; expire_seconds: number }>('select name, expire_seconds from pgboss.queue order by name');
      expect(Object.fromEntries(rows.map((row) => [row.name, row.expire_seconds]))).to.deep.equal({
        ordered: 21_600,
        'ordered-short': 21_600,
        other: 21_600,
        q: 86_000,
        short: 21_600,
      });
    } finally {
      await queue?.stop(1000);
      await pglite.close();
    }
  });
});

describe('pg-boss on PGlite: tasks start when the headroom lets them', function () {
  this.timeout(60_000);

  /** A Headroom the test opens: each wait is recorded and resolves when the test lets it. */
  const gate = () => {
    const waiting: Array<() => void> = [];
    return { waiting, headroom: { wait: () => new Promise<void>((start) => waiting.push(start)) } };
  };

  for (const queueName of ['q', 'ordered']) {
    it(`a fetched task of ${queueName === 'q' ? 'a standard' : 'an ordered'} queue waits for the headroom before its handler runs`, async () => {
      const pglite = await openPglite(await queueStoreDir());
      const { waiting, headroom } = gate();
      let queue: PgBossTaskQueue | undefined;
      try {
        queue = await PgBossTaskQueue.start({ pglite }, settings, logger, headroom);
        const ran: number[] = [];
        await queue.enqueue(queueName, { n: 1 }, { group: 'g' });
        await queue.work(queueName, async (task: { n: number }) => {
          ran.push(task.n);
        });
        await waitFor(() => waiting.length === 1, 20_000, 'the task waiting for the headroom');
        // the handler can run only once its wait resolves
        expect(ran).to.deep.equal([]);
        waiting.shift()!();
        await waitFor(() => ran.length === 1, 20_000, 'the handler');
        expect(ran).to.deep.equal([1]);
        await drained(queue);
      } finally {
        await queue?.stop(1000);
        await pglite.close();
      }
    });
  }
});

describeEarlySettlement('PGlite', ['stopped past its grace', 'killed'], async () => {
  const pglite = await openPglite(await queueStoreDir());
  return {
    connection: { pglite },
    states: async () => byState((await pglite.query<{ state: string; n: number }>(STATES_SQL)).rows),
    dispose: () => pglite.close(),
  };
});
