import { createServer } from 'node:net';
import { expect } from 'chai';
import { answerFor } from '../../../src/adapters/http/error-status.js';
import { createPino, PinoLogger } from '../../../src/adapters/logging/pino-logger.js';
import { Database } from '../../../src/adapters/persistence/database.js';
import { PgBossTaskQueue, type QueueSettings } from '../../../src/adapters/queue/pg-boss-task-queue.js';
import type { Logger } from '../../../src/ports/logger.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';
import { migratedDataDir } from '../../support/data-dirs.js';
import { createScratchDatabase, describeWithPostgres, type ScratchDatabase } from '../../support/postgres.js';
import { endHeldQueueInsert, panicEmbeddedDatabase, type PostgresProxy, startPostgresProxy } from '../../support/postgres-outage.js';

const logger = new PinoLogger(createPino('silent'));

const settings: QueueSettings = {
  queues: ['q'],
  concurrency: 1,
  heartbeatSeconds: 10,
  superviseIntervalSeconds: 1,
  pollingIntervalSeconds: 1,
  retryLimit: 0,
};

/** What `promise` rejected with (the test fails if it resolved). */
const refusal = (promise: Promise<unknown>): Promise<Error> =>
  promise.then(
    () => expect.fail('the task queue answered'),
    (error: Error) => error,
  );

/** A 503 `Database unavailable` with Retry-After, as the API answers a failure (also as another error's cause). */
const expectUnavailable = (error: unknown, what: string): void => {
  for (const [how, failure] of [
    ['as it is', error],
    ['as a use case wraps it', new Error('Failed to create job', { cause: error })],
  ] as const) {
    const answer = answerFor(failure);
    expect({ status: answer.status, message: answer.message, retryAfter: answer.retryAfterSeconds }, `${what}, ${how}: ${String(error)}`).to.deep.equal({
      status: 503,
      message: 'Database unavailable; try again shortly',
      retryAfter: 5,
    });
  }
};

describeWithPostgres(
  "The task queue's statements on a PostgreSQL server that ended the session or cannot be reached (its own pool, not the ORM's)",
  function () {
    this.timeout(60_000);
    let scratch: ScratchDatabase | undefined;
    let queue: PgBossTaskQueue | undefined;
    let proxy: PostgresProxy | undefined;

    afterEach(async () => {
      await proxy?.close();
      proxy = undefined;
      await queue?.stop(100).catch(() => undefined);
      queue = undefined;
      await scratch?.drop();
      scratch = undefined;
    });

    /**
     * The queue started on the scratch database through a proxy this test can take away: a server
     * gone. The proxy counts the connections made to it (`connections`); while `refusing`, it ends
     * each one at once, before the server is reached (`Connection terminated unexpectedly`).
     */
    const startBehindProxy = async (queueSettings: QueueSettings = settings, log: Logger = logger): Promise<PgBossTaskQueue> => {
      proxy = await startPostgresProxy(scratch!.url);
      return PgBossTaskQueue.start({ connectionString: proxy.url }, queueSettings, log);
    };

    /** Resolves once `done` holds, looked at every 20 ms (fails the test past `what`'s timeout). */
    const until = async (done: () => boolean, what: string): Promise<void> => {
      for (let i = 0; !done(); i++) {
        if (i > 1500) expect.fail(`waited 30 s for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };

    it("pg-boss's errors while the server is gone are logged once, not at every interval of each of its loops, and once it is back the log says how many were left out", async () => {
      scratch = await createScratchDatabase();
      const recorded = new RecordingLogger();
      queue = await startBehindProxy({ ...settings, queues: ['q', 'r'], concurrency: 2 }, recorded);
      for (const name of ['q', 'r']) await queue.work(name, async () => undefined);
      expect(await queue.enqueue('q', { n: 0 })).to.be.a('string');
      const errors = () => recorded.entries.filter((entry) => entry.level === 'error');
      expect(errors(), 'errors before the server went').to.deep.equal([]);
      proxy!.refusing = true;
      proxy!.cut();
      const before = proxy!.connections;
      // Every cut pooled connection reports, and pg-boss's loops (its supervision every second,
      // its flow poll, its heartbeat) and the adapter's look for due tasks fail at each interval.
      await until(() => proxy!.connections - before >= 8, 'eight connections tried while the server is gone');
      expect(
        errors().map((entry) => entry.message),
        'error lines',
      ).to.deep.equal(['task queue error: the database cannot be reached; further such errors are logged once every 10 minutes until it is reachable again']);
      proxy!.refusing = false;
      await until(() => recorded.entries.some((entry) => entry.message === 'the task queue is reachable again'), 'the queue reachable again');
      const back = recorded.entries.find((entry) => entry.message === 'the task queue is reachable again')!;
      expect((back.fields as { errorsLeftOut?: number }).errorsLeftOut, 'errors left out').to.be.at.least(1);
      expect(errors(), 'error lines').to.have.length(1);
    });

    /** No background statement of pg-boss's own (supervise, monitor) while a test counts connections. */
    const quiet: QueueSettings = { ...settings, superviseIntervalSeconds: 600, pollingIntervalSeconds: 600 };

    it('the tasks of one insert while the server is gone are all refused by that insert, with an error answered 503: no task is tried again on its own (at most one connection attempt, not one per task)', async () => {
      scratch = await createScratchDatabase();
      queue = await startBehindProxy(quiet);
      expect(await queue.enqueue('q', { n: 0 })).to.be.a('string');
      // Gone: the pool's connections cut, every new one ended at once.
      proxy!.refusing = true;
      proxy!.cut();
      const before = proxy!.connections;
      const tasks = 50;
      // Enqueued in one turn of the event loop: one insert carries them all.
      const refusals = await Promise.all(Array.from({ length: tasks }, (_, n) => refusal(queue!.enqueue('q', { n: n + 1 }))));
      const attempts = proxy!.connections - before;
      for (const [n, error] of refusals.entries()) expectUnavailable(error, `task ${n + 1} of the insert`);
      expect(new Set(refusals).size, 'tasks refused by one error (the insert that carried them)').to.equal(1);
      // The insert's own (none when it met a pooled connection that was cut), and pg-boss's
      // heartbeat could add one; each task tried again on its own would add 50.
      expect(attempts, 'connections tried while the server is gone').to.be.at.most(2);
    });

    it('a task the database refuses for its own content fails alone: the other tasks of its insert are tried again on their own and stored', async () => {
      scratch = await createScratchDatabase();
      queue = await startBehindProxy(quiet);
      // jsonb refuses the NUL character (22P05): the insert that carries this task fails as a whole.
      const [first, bad, last] = await Promise.all([
        queue.enqueue('q', { n: 1 }),
        queue.enqueue('q', { text: 'a\u0000b' }).then(
          () => expect.fail('the task with a NUL character was stored'),
          (error: Error) => error,
        ),
        queue.enqueue('q', { n: 3 }),
      ]);
      expect(first).to.be.a('string');
      expect(last).to.be.a('string');
      expect(answerFor(bad).status, String(bad)).to.equal(500);
      expect(await queue.depth()).to.deep.equal({ q: 2 });
    });

    it('an insert whose session the server ends (57P01: a fast shutdown, pg_terminate_backend) is refused with an error answered 503 with Retry-After', async () => {
      scratch = await createScratchDatabase();
      queue = await startBehindProxy();
      expect(await queue.enqueue('q', { n: 1 })).to.be.a('string');
      // The insert is held by a lock, then its session is ended.
      const error = await endHeldQueueInsert(scratch.url, () => refusal(queue!.enqueue('q', { n: 2 })));
      expect((error.cause as { code?: string } | undefined)?.code, String(error)).to.equal('57P01');
      expectUnavailable(error, 'insert whose session ended');
    });

    it('an insert or a count while the server is gone (connections cut, new ones refused) is refused with an error answered 503 with Retry-After', async () => {
      scratch = await createScratchDatabase();
      queue = await startBehindProxy();
      expect(await queue.enqueue('q', { n: 1 })).to.be.a('string');
      await proxy!.close();
      proxy = undefined;
      // The first may meet a pooled connection that was cut (`Connection terminated …`), later ones are refused (ECONNREFUSED).
      for (let i = 1; i <= 3; i++) expectUnavailable(await refusal(queue.enqueue('q', { n: i + 1 })), `insert ${i}, server gone`);
      expectUnavailable(await refusal(queue.depth()), 'count of waiting tasks, server gone');
      expectUnavailable(await refusal(queue.failed()), 'count of failed tasks, server gone');
    });

    it('an insert that starts the queue while the server cannot be reached is refused with an error answered 503 with Retry-After', async () => {
      // A port where nothing listens: a server closed at once.
      const server = createServer();
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const port = (server.address() as { port: number }).port;
      await new Promise<void>((resolve) => server.close(() => resolve()));
      queue = PgBossTaskQueue.open({ connectionString: `postgres://postgres@127.0.0.1:${port}/none` }, settings, logger);
      const error = await refusal(queue.enqueue('q', { n: 1 }));
      expectUnavailable(error, 'insert starting the queue');
    });
  },
);

describe("The task queue's statements on an embedded database whose thread failed", function () {
  this.timeout(120_000);
  let database: Database | undefined;
  let queue: PgBossTaskQueue | undefined;

  afterEach(async () => {
    await queue?.stop(100).catch(() => undefined);
    queue = undefined;
    await database?.close().catch(() => undefined);
    database = undefined;
  });

  it('an insert is refused with an error answered 503 with Retry-After, as the ORM statements are', async () => {
    const dataDir = await migratedDataDir('queue-unavailable-pglite');
    database = await Database.open({ databaseUrl: undefined, dataDir, logger, onEngineFailure: () => undefined });
    queue = await PgBossTaskQueue.start({ pglite: database.pglite! }, settings, logger);
    expect(await queue.enqueue('q', { n: 1 })).to.be.a('string');
    await panicEmbeddedDatabase(database, dataDir);
    expectUnavailable(await refusal(queue.enqueue('q', { n: 2 })), 'insert after a PANIC');
    expectUnavailable(await refusal(queue.depth()), 'count after a PANIC');
  });
});
