import pg from 'pg';
import { type ConstructorOptions, type Db, PgBoss, fromPglite, type JobInsert, type PGliteLike } from 'pg-boss';
import { type Headroom, NO_WAIT } from '../../ports/headroom.js';
import type { Logger } from '../../ports/logger.js';
import { isUuid } from '../../domain/ids/is-uuid.js';
import { type BoundedConnections, boundedConnections, DATABASE_TIMEOUTS, type DatabaseTimeouts } from '../shared/database-bounds.js';
import { unavailableOr } from '../shared/database-unavailable.js';
import { GroupCommit } from '../shared/group-commit.js';
import { QueueErrors } from './queue-errors.js';
import { RepeatedWarnings } from './repeated-warnings.js';
import { keyedTaskId, orderedTaskId } from './task-ids.js';
import type { EnqueueOptions, RunningTask, TaskQueue, WorkOptions } from '../../ports/task-queue.js';

export interface QueueSettings {
  /** The queues to create at start-up. */
  readonly queues: readonly string[];
  /**
   * Queues whose groups run one task at a time across every process sharing the database, in
   * the order the tasks were stored (pg-boss's `key_strict_fifo` policy: the group is the task's
   * singleton key, and a unique index lets one task per key be active at a time). Every task of
   * such a queue needs a group. A queue's policy is fixed when it is created.
   */
  readonly orderedQueues?: readonly string[];
  /** Scales how many waiting tasks a queue's worker takes at once (concurrency × BATCH_SIZE) and runs together. */
  readonly concurrency: number;
  /** A task whose worker sent no heartbeat for this long (process killed) is run again. Minimum 10. */
  readonly heartbeatSeconds: number;
  /** How often stale and expired tasks are looked for. */
  readonly superviseIntervalSeconds: number;
  /**
   * How often the queues are looked at for tasks this process's idle workers did not store
   * themselves: another replica's, a retry that has come due (a busy worker fetches again at once).
   */
  readonly pollingIntervalSeconds: number;
  /** Further attempts after a handler failure, with exponential backoff. */
  readonly retryLimit: number;
  /** The first retry's delay; each later one doubles it. Default 2. */
  readonly retryDelaySeconds?: number;
  /**
   * A completed or failed task is deleted this long after it finished (pg-boss's
   * `deleteAfterSeconds`; 0: never). Idempotency keys are remembered as long. Default 7 days.
   */
  readonly finishedTaskSeconds?: number;
  /** A task still waiting this long after it was stored is dropped unrun (pg-boss's `retentionSeconds`). Default 14 days. */
  readonly waitingTaskSeconds?: number;
  /**
   * How long a task of a queue may run before it is failed (and retried), by queue name
   * (pg-boss's `expireInSeconds`, at most 24 hours). Default 6 hours.
   */
  readonly runningTaskSeconds?: Readonly<Record<string, number>>;
  /**
   * Whether this process creates the queues and sets their settings (default true: the service).
   * False for a process that only stores tasks for the service to run (the CLI's `deliveries
   * replay`): its environment is not the service's, and settings written from it would apply to
   * every task stored after it, by every replica. A queue it finds missing is an error then.
   */
  readonly manageQueues?: boolean;
}

/** The embedded database, or a PostgreSQL server with the bounds of the queue's connections and statements (DATABASE_TIMEOUTS when unset). */
export type QueueConnection = { readonly pglite: PGliteLike } | { readonly connectionString: string; readonly timeouts?: DatabaseTimeouts };

const SCHEMA = 'pgboss';
const DAY_S = 86_400;
const ORDERED_POLICY = 'key_strict_fifo';
/**
 * A worker of a queue without a bound takes up to this many waiting tasks at once, and fetches
 * again at once while batches come back full; a batch-of-one worker would wait a polling interval
 * per task. Such a queue has `concurrency` workers (see `work`). Each task of a batch is settled
 * as its own handler ends, not when the whole batch has (see `#settleBatch`).
 */
const BATCH_SIZE = 10;

/**
 * Why pg-boss failed a task, from its output: a handler's failure `{message}`, pg-boss's own expiry
 * `{value: {message}}`, its stop a bare string.
 */
const FAILURE_MESSAGE = `COALESCE(output->>'message', output->'value'->>'message', CASE WHEN jsonb_typeof(output) = 'string' THEN output #>> '{}' END, 'failed by the task queue')`;
/**
 * A task that ended while others of its batch still run is settled on its own once the batch has
 * run this much longer, or at once when the queue is stopping (see #settleBatch).
 */
const HELD_BATCH_MS = 250;
/** How long a task may run when its queue sets no time of its own (`runningTaskSeconds`): 6 hours. */
const DEFAULT_RUNNING_S = 6 * 60 * 60;
/** Most tasks one insert statement carries (see `enqueue`). */
const MAX_WRITE = 500;
/**
 * How often each worker polls on its own. The adapter looks at all its queues in one statement
 * every polling interval and wakes the workers of those with a task due (`#lookForWork`); this
 * poll only backs that up.
 */
const WORKER_BACKSTOP_SECONDS = 60;

/** A task waiting for its queue's next insert (GroupCommit). */
interface PendingTask {
  readonly id: string;
  /**
   * Where the task stands among the tasks of its insert (see `#insert`): its id when this process
   * or the caller made it (`orderedTaskId`, in creation order), else — a keyed id, a hash — a
   * UUIDv7 made when it was queued. Compared as text.
   */
  readonly rank: string;
  readonly job: JobInsert;
}

/** How pg-boss's insert statement (12.x, `insertJobs`) stamps its rows: one time for every row. */
const CREATED_ON = `${SCHEMA}.job_now() as created_on`;
/** How it answers (`returnId`): the ids of the rows it stored. */
const RETURNING = 'RETURNING id';
/** The plain statement's end: its only `RETURNING`, the ids of the insert itself (no outer query). */
const ENDS_RETURNING = /\bRETURNING id\s*$/;

/**
 * `db`, for one pg-boss insert of a queue, with each row's `created_on` made distinct and in the
 * order of `order` (the rows' ids): the statement's time, or when that is not past `newest` (the
 * newest `created_on` this process stored in the queue, in microseconds since 1970: PGlite's clock
 * keeps milliseconds, so consecutive inserts share it), just past that; plus the row's place in
 * `order` in microseconds. `stored` is told the newest `created_on` of the rows stored. An ordered
 * queue hands out a group's waiting tasks by `created_on`, then by id, and a keyed id is a hash:
 * without this, the rows of one insert tied and ran in the order of their hashes. Tasks that two
 * processes store at the same moment can still tie (the id decides then, as before). A statement
 * that does not stamp its rows as expected (a pg-boss upgrade that changed it) is refused rather
 * than run with its rows out of order; so is one that does not end with the plain `RETURNING id`
 * (with `notify` on, pg-boss answers `RETURNING id, start_after` inside a CTE whose outer
 * `SELECT id` would drop the stamps read back): refused before anything runs, never after the
 * rows are stored.
 */
export const inOrder = (db: Db, order: readonly string[], newest: bigint | undefined, stored: (newest: bigint) => void): Db => ({
  executeSql: async (text, values = []) => {
    const stamps = text.split(CREATED_ON).length - 1;
    const answers = text.split('RETURNING').length - 1;
    if (stamps !== 1 || answers !== 1 || !ENDS_RETURNING.test(text))
      throw new Error(`pg-boss's insert statement no longer stamps its rows with "${CREATED_ON}" and ends "${RETURNING}": tasks cannot be stored in order`);
    const idsAt = values.length + 1;
    const stamped = `GREATEST(${SCHEMA}.job_now(), 'epoch'::timestamptz + ($${idsAt + 1}::bigint + 1) * interval '1 microsecond')
        + COALESCE(array_position($${idsAt}::uuid[], j.id) - 1, 0) * interval '1 microsecond' as created_on`;
    const result = await db.executeSql(
      text
        .replace(CREATED_ON, () => stamped)
        .replace(ENDS_RETURNING, () => `${RETURNING}, (extract(epoch FROM created_on) * 1000000)::bigint::text AS created_us`),
      [...values, order, newest === undefined ? null : String(newest)],
    );
    let last: bigint | undefined;
    for (const row of result.rows as Array<{ created_us?: string }>) {
      // Every row answers it (the check above); a row without it is not a reason to fail stored tasks.
      if (typeof row.created_us !== 'string') continue;
      const us = BigInt(row.created_us);
      if (last === undefined || us > last) last = us;
    }
    if (last !== undefined) stored(last);
    return result;
  },
});

/**
 * TaskQueue on pg-boss, in the service's own database: tables in the `pgboss` schema,
 * created and migrated by pg-boss itself. Tasks are rows, so they survive restarts and are
 * shared by every replica on the same PostgreSQL.
 */
export class PgBossTaskQueue implements TaskQueue {
  /** Each queue's inserts (group commit, see `enqueue`). */
  readonly #writers = new Map<string, GroupCommit<PendingTask, string | null>>();
  /** Each queue's newest `created_on` this process stored, in microseconds since 1970 (see `inOrder`). */
  readonly #newest = new Map<string, bigint>();

  /** The pg-boss workers this process runs for each queue (`work`), woken by its own inserts. */
  readonly #workers = new Map<string, string[]>();

  /** Workers running a batch now (the others are idle: `#wake`). */
  readonly #busy = new Set<string>();
  /** Queues worked with a bound (`WorkOptions.maxConcurrent`): one task per worker. */
  readonly #bounded = new Set<string>();

  /** Each queue's completions of tasks whose batch still runs (`#settleNow`). */
  readonly #completions = new Map<string, GroupCommit<{ id: string; retryCount: number }, undefined>>();

  readonly #ordered: ReadonlySet<string>;

  /** The start (see `open`) once it has begun; kept when it failed, so that every use rejects with its error. */
  #starting: Promise<void> | undefined;
  /** Set once the start succeeded: from then on an operation pays nothing for it. */
  #started = false;

  /** Looks for due tasks every polling interval once a worker runs (`#lookForWork`); cleared by `stop`. */
  #looking: NodeJS.Timeout | undefined;
  /** A look still running: the next tick skips rather than piling statements up on a slow database. */
  #lookInFlight = false;
  /** Set while looks fail, so that a database that stays down is reported once, not every interval. */
  #lookFailing = false;
  /** Set by `stop`: a task's signal no longer aborts (see `#takenBack`), and a task that ends is settled at once (`#settleBatch`). */
  #stopping = false;
  /** Ends the wait of each task that ended while its batch still runs (`#settleBatch`): called by `stop`. */
  readonly #holds = new Set<() => void>();
  /** Releases ordered groups every supervise interval once an ordered queue's worker runs (`#releaseGroups`); cleared by `stop`. */
  #releasing: NodeJS.Timeout | undefined;
  #releaseInFlight = false;

  private constructor(
    private readonly boss: PgBoss,
    /** On the embedded database, held by this process alone: tasks found running at the start are orphans. */
    private readonly embedded: boolean,
    private readonly settings: QueueSettings,
    private readonly logger: Logger,
    /** Each task waits here before it starts: while the service is busy, requests go first. */
    private readonly headroom: Headroom,
    /** pg-boss's errors in the log: a database that cannot be reached once, not at every interval of each of its loops. */
    private readonly errors: QueueErrors,
    /** PostgreSQL: the bounds of pg-boss's connections (database-bounds.ts), lifted while pg-boss starts (its schema's migrations). */
    private readonly bounds: BoundedConnections | undefined,
  ) {
    this.#ordered = new Set(settings.orderedQueues ?? []);
  }

  /** Begins the start unless it has begun; resolves once it succeeded. */
  #start(): Promise<void> {
    if (this.#starting === undefined) {
      const starting = this.#prepare();
      this.#starting = starting;
      // Handled here too, so that a failed start is reported by the operations that wait for it
      // (the service's workers, at start-up), never as an unhandled rejection.
      starting.then(
        () => {
          this.#started = true;
        },
        () => undefined,
      );
    }
    return this.#starting;
  }

  static async #failOrphans(boss: PgBoss, names: string[], ordered: ReadonlySet<string>, logger: Logger): Promise<void> {
    const { rows } = (await boss
      .getDb()
      .executeSql(`SELECT name, id, retry_count >= retry_limit AS exhausted FROM ${SCHEMA}.job WHERE name = ANY($1::text[]) AND state = 'active'`, [
        names,
      ])) as {
      rows: Array<{ name: string; id: string; exhausted: boolean }>;
    };
    const message = 'the process running this task stopped before it finished';
    for (const name of new Set(rows.map((row) => row.name))) {
      const left = rows.filter((row) => row.name === name);
      // On an ordered queue a failed task holds its group until it is deleted (days): one with no
      // attempt left is given up instead, as a handler's last failure is (#settleOrdered).
      const givenUp = ordered.has(name) ? left.filter((row) => row.exhausted).map((row) => row.id) : [];
      const retried = left.filter((row) => !givenUp.includes(row.id)).map((row) => row.id);
      if (retried.length > 0) await boss.fail(name, retried, { message });
      if (givenUp.length > 0) await boss.complete(name, givenUp, { givenUp: true, message });
      logger.info({ queue: name, tasks: retried.length, givenUp: givenUp.length }, 'tasks left running by a stopped process failed, to be retried');
    }
  }

  /** Every queue this adapter knows, standard and ordered. */
  get #names(): string[] {
    return [...this.settings.queues, ...this.#ordered];
  }

  /**
   * A queue that starts when it is first used: pg-boss's own start (its schema, created or
   * migrated by pg-boss), the queues' settings, and on the embedded database the tasks a
   * stopped process left running failed for a retry. `enqueue`, `work`, `depth` and `failed`
   * begin the start and wait for it; when it fails they reject with its error, and `stop` has
   * nothing left to stop. The service serves requests before its first `work` (a request's
   * task waits for the start as it would for a busy insert), and the statements that make it
   * ready (the keys, the channels) come before pg-boss's on the embedded database's one
   * connection (docs/architecture.md, start-up). `headroom`: when tasks may start (default: at once).
   */
  static open(connection: QueueConnection, settings: QueueSettings, logger: Logger, headroom: Headroom = NO_WAIT): PgBossTaskQueue {
    // Polling, not LISTEN/NOTIFY: with notify on, pg-boss turns polling into a slow backstop and
    // a batchSize-1 worker waits for the next notification even when tasks are waiting. A task
    // this process stores wakes its own worker of that queue at once instead (`#insert`, no
    // database notification involved); a task another replica stored is found by the next poll.
    // Stale heartbeats are found by pg-boss's queue monitor, which runs at most once per
    // monitorIntervalSeconds (default 60): both follow QUEUE_SUPERVISE_SECONDS.
    const common = {
      schema: SCHEMA,
      superviseIntervalSeconds: settings.superviseIntervalSeconds,
      monitorIntervalSeconds: settings.superviseIntervalSeconds,
      useListenNotify: false,
      schedule: false,
    };
    // PostgreSQL: 10 connections (pg-boss's default). With 4, an HTTP request's insert waited
    // for a connection behind the workers' fetch, complete and heartbeat queries under load
    // (bench/README.md, "Measurements behind the code").
    // A server that stops answering: connections and statements bounded (database-bounds.ts),
    // passed on to pg's pool, whose client class is the bounded one.
    const bounds = 'pglite' in connection ? undefined : boundedConnections(connection.timeouts ?? DATABASE_TIMEOUTS, pg.Client);
    const boss =
      'pglite' in connection
        ? new PgBoss({ ...common, db: fromPglite(connection.pglite) })
        : new PgBoss({ ...common, connectionString: connection.connectionString, max: 10, ...(bounds?.poolOptions as ConstructorOptions) });
    const errors = new QueueErrors(logger);
    boss.on('error', (error: unknown) => errors.report(error));
    const warnings = new RepeatedWarnings(logger);
    boss.on('warning', (warning: unknown) => warnings.report(warning));
    return new PgBossTaskQueue(boss, 'pglite' in connection, settings, logger, headroom, errors, bounds);
  }

  /** `open`, resolved once the queue has started (rejected with the start's error). */
  static async start(connection: QueueConnection, settings: QueueSettings, logger: Logger, headroom: Headroom = NO_WAIT): Promise<PgBossTaskQueue> {
    const queue = PgBossTaskQueue.open(connection, settings, logger, headroom);
    await queue.#start();
    return queue;
  }

  /** pg-boss's start, the queues' settings and the orphans (see `open`); pg-boss is stopped again when it fails. */
  async #prepare(): Promise<void> {
    const { boss, settings, logger } = this;
    try {
      // pg-boss's start migrates its schema when its version changed, which may take long on a
      // large job table: not bounded (connections are).
      await (this.bounds === undefined ? boss.start() : this.bounds.unbounded(() => boss.start()));
      const ordered = this.#ordered;
      const names = this.#names;
      // One look at every queue; a queue whose settings are already those asked for is left
      // alone (a start of the service changes nothing): three statements less per queue.
      const existing = new Map((await boss.getQueues(names)).map((queue) => [queue.name, queue]));
      const shared = {
        retryLimit: settings.retryLimit,
        retryBackoff: (settings.retryDelaySeconds ?? 2) > 0,
        retryDelay: settings.retryDelaySeconds ?? 2,
        heartbeatSeconds: settings.heartbeatSeconds,
        deleteAfterSeconds: settings.finishedTaskSeconds ?? 7 * DAY_S,
        retentionSeconds: settings.waitingTaskSeconds ?? 14 * DAY_S,
      };
      for (const name of names) {
        const options = { ...shared, expireInSeconds: settings.runningTaskSeconds?.[name] ?? DEFAULT_RUNNING_S };
        const queue = existing.get(name);
        const policy = ordered.has(name) ? ORDERED_POLICY : 'standard';
        if (queue && queue.policy !== policy) {
          throw new Error(`Task queue ${name} exists with policy ${queue.policy}, not ${policy}: a queue's policy cannot change; use a new queue name`);
        }
        if (settings.manageQueues === false) {
          if (queue === undefined) throw new Error(`Task queue ${name} does not exist: start the service on this database first (it creates its queues)`);
        } else if (queue === undefined) await boss.createQueue(name, { ...options, policy });
        else if (Object.entries(options).some(([key, value]) => queue[key as keyof typeof options] !== value)) await boss.updateQueue(name, options);
      }
      // The embedded database is held by this process alone (the DATA_DIR lock): a task found
      // running belongs to a process that is gone (stopped past SHUTDOWN_TIMEOUT_MS, or killed).
      // It is failed now, so that it is retried as configured, instead of after its heartbeat
      // expires (QUEUE_HEARTBEAT_SECONDS, at least 10 s). On PostgreSQL another replica may be
      // running it: there the heartbeat decides.
      if (this.embedded) await PgBossTaskQueue.#failOrphans(boss, names, this.#ordered, logger);
    } catch (error) {
      await boss.stop({ graceful: false, close: true }).catch(() => undefined);
      throw error;
    }
  }

  /** A UUIDv7 (orderedTaskId): tasks queued with such ids rank by them within one insert. */
  newTaskId(): string {
    return orderedTaskId();
  }

  /**
   * Group commit (GroupCommit): tasks enqueued while their queue's insert is busy (one at a time
   * on either engine), or in the same turn of the event loop, are stored together by
   * the next single insert, and each caller is answered when that insert has committed. At low
   * load a task is written at once; under load one statement carries many tasks instead of one
   * statement each, which keeps the embedded database (one connection, one statement at a time)
   * from falling behind.
   */
  enqueue(queue: string, payload: object, options: EnqueueOptions = {}): Promise<string | null> {
    if (!this.#started) return this.#start().then(() => this.enqueue(queue, payload, options), rethrowUnavailable);
    if (options.id !== undefined && (options.key !== undefined || !isUuid(options.id)))
      return Promise.reject(new Error(`Task id ${JSON.stringify(options.id)} refused: an id is a UUID from newTaskId(), given without a key`));
    const id = options.id ?? (options.key === undefined ? orderedTaskId() : keyedTaskId(queue, options.key));
    const rank = options.key === undefined ? id.toLowerCase() : orderedTaskId();
    const ordered = this.#ordered.has(queue);
    if (ordered && options.group === undefined) return Promise.reject(new Error(`Task queue ${queue} is ordered: every task needs a group`));
    const grouping = options.group === undefined ? {} : ordered ? { singletonKey: options.group } : { group: { id: options.group } };
    let writer = this.#writers.get(queue);
    if (writer === undefined) {
      writer = new GroupCommit((tasks) => this.#insert(queue, tasks), { maxItems: MAX_WRITE });
      this.#writers.set(queue, writer);
    }
    return writer.add({ id, rank, job: { id, data: payload, ...grouping } });
  }

  /**
   * One insert of tasks: each task's id once it is stored, null for a key seen before (already
   * stored, or earlier in the same insert). The rows are stamped in the order of their ranks
   * (`inOrder`): a group's tasks queued together run in the order they were queued, or for ids
   * made beforehand in the order the ids were made, and after every task the queue stored before.
   */
  async #insert(queue: string, tasks: readonly PendingTask[]): Promise<(string | null)[]> {
    const ids = new Set<string>();
    const unique = tasks.filter((task) => !ids.has(task.id) && ids.add(task.id));
    const order = [...unique].sort((a, b) => (a.rank < b.rank ? -1 : a.rank > b.rank ? 1 : 0)).map((task) => task.id);
    const stored = new Set(
      (await this.boss
        .insert(
          queue,
          unique.map((task) => task.job),
          {
            returnId: true,
            db: inOrder(this.boss.getDb(), order, this.#newest.get(queue), (newest) => {
              // The largest: inserts of one queue run one at a time, but a batch that failed is tried again task by task at once.
              if (newest > (this.#newest.get(queue) ?? 0n)) this.#newest.set(queue, newest);
            }),
          },
        )
        .catch(rethrowUnavailable)) ?? [],
    );
    this.#reachable();
    // Committed: this process's worker of the queue fetches now rather than after its polling
    // interval (up to a second later); a worker in the middle of a batch fetches again as soon
    // as the batch has finished, so wake-ups while it is busy cost one fetch, not one each.
    if (stored.size > 0) this.#wake(queue);
    return tasks.map((task) => (stored.delete(task.id) ? task.id : null));
  }

  async work<T extends object>(queue: string, handler: (payload: T, task: RunningTask) => Promise<void>, options: WorkOptions<T> = {}): Promise<void> {
    if (!this.#started) await this.#start();
    const bounded = options.maxConcurrent !== undefined;
    const ordered = this.#ordered.has(queue);
    if (options.oneAtATimePerGroup && !ordered) {
      this.logger.debug({ queue }, 'groups of this queue run one at a time within this process only (not an ordered queue)');
    }
    // `concurrency` workers per queue, each taking batches of up to BATCH_SIZE, unless a bound asks
    // for N: N workers of one slot each. A pg-boss worker fetches its next batch only once the
    // whole of its current one has ended: with one worker per queue, one long task (a deploy, a
    // slow model reply) held back every task stored after it; now it holds back one worker.
    // Separate workers, not pg-boss's localConcurrency, which names only its first worker: this
    // way each can be woken (`#wake`). A standard queue whose groups run one at a time keeps one
    // worker taking all its batch: it keeps a group's tasks apart only within a batch (see below).
    const legacyGroups = options.oneAtATimePerGroup === true && !ordered && !bounded;
    const slots = bounded ? Math.max(1, Math.trunc(options.maxConcurrent ?? 1)) : legacyGroups ? 1 : this.settings.concurrency;
    const batchSize = bounded ? 1 : legacyGroups ? this.settings.concurrency * BATCH_SIZE : BATCH_SIZE;
    if (bounded) this.#bounded.add(queue);
    for (let slot = 0; slot < slots; slot++) await this.#addWorker(queue, handler, options, batchSize, ordered);
    this.#looking ??= setInterval(() => void this.#lookForWork(), this.settings.pollingIntervalSeconds * 1000).unref();
    if (ordered) this.#releasing ??= setInterval(() => void this.#releaseGroups(), this.settings.superviseIntervalSeconds * 1000).unref();
  }

  /** One pg-boss worker of `queue` (see `work`), named in `#workers`. */
  async #addWorker<T extends object>(
    queue: string,
    handler: (payload: T, task: RunningTask) => Promise<void>,
    options: WorkOptions<T>,
    batchSize: number,
    ordered: boolean,
  ): Promise<void> {
    let workerId: string | undefined;
    workerId = await this.boss.work<T>(
      queue,
      {
        batchSize,
        localConcurrency: 1,
        // Woken by `#lookForWork` when a task is due; this poll is the backstop.
        pollingIntervalSeconds: Math.max(WORKER_BACKSTOP_SECONDS, this.settings.pollingIntervalSeconds),
        // Fetch again at once while batches come back full (pg-boss's default waits a poll).
        burstWhenBatchFull: batchSize > 1,
        // Groups are kept apart here, not with pg-boss's localGroupConcurrency: that hands out one
        // task per group and batch and puts the rest back, in whatever order the database returns
        // them next; here a batch runs all the tasks of a group it got, one after another, in order.
        // The next batch is fetched only once this one has finished, so a group never overlaps.
        perJobResults: true,
      },
      async (jobs) => {
        // Named once `work` has answered, before its first fetch can: '' only in theory.
        const self = workerId ?? '';
        this.#busy.add(self);
        try {
          // A full batch may have left more waiting: another idle worker looks too.
          if (jobs.length >= batchSize && batchSize > 1) this.#wake(queue, self);
          return await this.#runBatch(queue, self, jobs, handler, options, ordered);
        } finally {
          this.#busy.delete(self);
        }
      },
    );
    this.#workers.set(queue, [...(this.#workers.get(queue) ?? []), workerId]);
  }

  /** One fetched batch of `queue` (see `#addWorker`). */
  #runBatch<T extends object>(
    queue: string,
    workerId: string,
    jobs: ReadonlyArray<{ readonly id: string; readonly data: T; readonly retryCount: number; readonly signal: AbortSignal; readonly groupId?: string | null }>,
    handler: (payload: T, task: RunningTask) => Promise<void>,
    options: WorkOptions<T>,
    ordered: boolean,
  ) {
    if (ordered) {
      // An ordered queue hands out at most one task per group per fetch (the group's head),
      // so a chat's burst would wait a polling interval per message: fetch again at once
      // after every batch that brought work; an empty fetch ends the burst.
      if (jobs.length > 0 && workerId !== '') this.boss.notifyWorker(workerId);
      return this.#settleOrdered(queue, jobs, handler);
    }
    // The tasks of a batch start one event-loop turn apart, not all in one go: forty handlers
    // each building a request before their first await held the loop (and every HTTP
    // request waiting on it) for tens of milliseconds.
    let turn: Promise<void> = Promise.resolve();
    const run = (job: (typeof jobs)[number]): Promise<void> => {
      turn = turn.then(nextTurn).then(() => this.headroom.wait());
      return turn.then(() => handler(job.data, { id: job.id, attempt: job.retryCount + 1, signal: this.#takenBack(queue, job.signal) }));
    };
    // Each task settles on its own: one failure must not retry the others of the batch.
    const outcomeOf = (job: (typeof jobs)[number], running: Promise<void>) =>
      running.then(
        () => ({ id: job.id, status: 'completed' as const }),
        (error: unknown) => ({ id: job.id, status: 'failed' as const, output: { message: String((error as Error)?.message ?? error) } as object | undefined }),
      );
    if (!options.oneAtATimePerGroup)
      return this.#settleBatch(
        queue,
        jobs,
        jobs.map((job) => outcomeOf(job, run(job))),
      );
    // A batch may hold several tasks of one group (a chat's messages): they run one after
    // another, in `orderBy` order or else by id (creation order, see orderedTaskId), since
    // the database hands tasks stored in one millisecond out in any order. Groups run together.
    const rank = (job: (typeof jobs)[number]): number | string => (options.orderBy ? options.orderBy(job.data) : job.id);
    const groups = new Map<string, Array<(typeof jobs)[number]>>();
    for (const job of jobs) {
      const key = job.groupId ?? job.id;
      const members = groups.get(key);
      if (members) members.push(job);
      else groups.set(key, [job]);
    }
    const outcome = new Map<string, Promise<void>>();
    for (const members of groups.values()) {
      members.sort((a, b) => {
        const left = rank(a);
        const right = rank(b);
        return left < right ? -1 : left > right ? 1 : 0;
      });
      let previous: Promise<unknown> = Promise.resolve();
      for (const job of members) {
        const current = previous.then(() => run(job));
        outcome.set(job.id, current);
        previous = current.catch(() => undefined);
      }
    }
    return this.#settleBatch(
      queue,
      jobs,
      jobs.map((job) => outcomeOf(job, outcome.get(job.id)!)),
    );
  }

  /**
   * Wakes the workers of `queue` for tasks that may be waiting: on a bounded queue all of them
   * (one task each, so tasks stored together start together); otherwise one idle worker (its
   * batch, when full, wakes the next: one fetch per batch of work, not one per worker), or when
   * none is idle all of them, each to fetch again once its batch has ended. `except`: a worker
   * that is busy anyway.
   */
  #wake(queue: string, except?: string): void {
    const workers = this.#workers.get(queue) ?? [];
    if (this.#bounded.has(queue)) {
      for (const workerId of workers) this.boss.notifyWorker(workerId);
      return;
    }
    const idle = workers.find((workerId) => workerId !== except && !this.#busy.has(workerId));
    if (idle !== undefined) this.boss.notifyWorker(idle);
    else for (const workerId of workers) if (workerId !== except) this.boss.notifyWorker(workerId);
  }

  /**
   * The signal a handler gets: aborted when pg-boss takes its task back while it runs — past the
   * queue's time limit (`expireInSeconds`), or its claim lost (its heartbeat missed, the task
   * failed by another replica's supervisor) — since the task is then run again. Not when the
   * queue stops: pg-boss aborts its running handlers once the stop's wait is over, but those are
   * left to finish as they would have in a killed process (a command survives its gateway), and
   * their tasks run again after the next start. pg-boss aborts a batch's signals once the batch
   * has settled too, when nobody listens any more.
   */
  #takenBack(queue: string, claim: AbortSignal): AbortSignal {
    const taken = new AbortController();
    const since = Date.now();
    const limitS = this.settings.runningTaskSeconds?.[queue] ?? DEFAULT_RUNNING_S;
    const abort = (): void => {
      if (this.#stopping) return;
      // pg-boss aborts a batch past its time with a bare abort, a lost claim with an Error of its
      // own — also when another process's supervisor failed the task for its time.
      const lost = claim.reason instanceof Error && claim.reason.name !== 'AbortError' && Date.now() - since < limitS * 1000;
      const why = lost ? 'its claim was lost (another process took it over after a missed heartbeat)' : `it ran past its queue's time limit of ${limitS} s`;
      taken.abort(new Error(`the task queue took this task back: ${why}`));
    };
    // A batch past its time before this handler started (it waited for the headroom) aborted already.
    if (claim.aborted) abort();
    else claim.addEventListener('abort', abort, { once: true });
    return taken.signal;
  }

  /**
   * One statement for every queue with a worker here, instead of each worker's own poll: an idle
   * service ran a fetch per queue each second (8 of them), most of the embedded database
   * thread's idle work (bench/README.md, "Measurements behind the code"). The workers of a queue
   * with a task due (stored by another replica, a retry whose delay has passed) are woken and
   * fetch as pg-boss does; an ordered queue whose waiting tasks are held behind their group's
   * running one is woken and finds nothing, as its poll would.
   */
  async #lookForWork(): Promise<void> {
    if (this.#lookInFlight) return;
    this.#lookInFlight = true;
    try {
      const { rows } = (await this.boss.getDb().executeSql(
        // EXISTS per queue, not DISTINCT over the waiting tasks: with 100 000 waiting (a drain
        // after a burst) the DISTINCT took 27-31 ms of the embedded database a look, this 3.5.
        `SELECT q.name FROM unnest($1::text[]) AS q(name)
         WHERE EXISTS (SELECT 1 FROM ${SCHEMA}.job j
                       WHERE j.name = q.name AND j.state < 'active' AND NOT j.blocked AND j.start_after <= ${SCHEMA}.job_now())`,
        [[...this.#workers.keys()]],
      )) as { rows: Array<{ name: string }> };
      this.#reachable();
      for (const { name } of rows) this.#wake(name);
    } catch (error) {
      // A look cut off by the queue's own stop is no failure.
      if (this.#looking === undefined) return;
      if (!this.#lookFailing) this.logger.warn({ err: error }, 'looking for due tasks failed; trying again every polling interval');
      this.#lookFailing = true;
    } finally {
      this.#lookInFlight = false;
    }
  }

  /** A statement succeeded: said once when looks had failed or pg-boss had reported the database unreachable. */
  #reachable(): void {
    const leftOut = this.errors.reachable();
    if (this.#lookFailing || leftOut !== undefined) this.logger.info(leftOut ? { errorsLeftOut: leftOut } : {}, 'the task queue is reachable again');
    this.#lookFailing = false;
  }

  /**
   * Runs a batch of an ordered queue: one task per group, so all of them at once. A task that
   * fails on its last attempt is completed (and logged at error level) rather than failed: a
   * failed task of a `key_strict_fifo` queue would hold back its group's later tasks for good.
   * A task that ended while others of its batch still run is settled before the batch
   * (`#settleBatch`): its group's next task can start while a long one runs.
   */
  #settleOrdered<T extends object>(
    queue: string,
    jobs: ReadonlyArray<{ readonly id: string; readonly data: T; readonly retryCount: number; readonly signal: AbortSignal }>,
    handler: (payload: T, task: RunningTask) => Promise<void>,
  ) {
    const ended = jobs.map((job, i) =>
      (async () => {
        if (i > 0) await nextTurn();
        await this.headroom.wait();
        await handler(job.data, { id: job.id, attempt: job.retryCount + 1, signal: this.#takenBack(queue, job.signal) });
      })().then(
        () => ({ id: job.id, status: 'completed' as const, output: undefined as object | undefined }),
        (error: unknown) => this.#lastFailure(queue, job, error),
      ),
    );
    return this.#settleBatch(queue, jobs, ended);
  }

  /**
   * Settles the tasks of a batch, each as its own handler ends, and resolves with their results
   * for pg-boss (`perJobResults`) once every handler has ended. pg-boss settles a batch only when
   * all of it has ended, and a stop past its grace (or a killed process) fails every task of the
   * batch still active: a task that ended beside a long one (a 40-minute command) would run again.
   * So a task that ended while others of its batch still run HELD_BATCH_MS later is settled then
   * (`#settleNow`, fenced to its attempt; pg-boss's own settling of the batch then finds it settled
   * and leaves it alone), and at once while the queue stops. A batch of quick tasks is still
   * settled by pg-boss in one statement (per outcome): settling every task on its own cost the
   * embedded database's p99 under load (bench/README.md, "Measurements behind the code").
   */
  async #settleBatch(
    queue: string,
    jobs: ReadonlyArray<{ readonly id: string; readonly retryCount: number }>,
    ended: ReadonlyArray<Promise<{ readonly id: string; readonly status: 'completed' | 'failed'; readonly output?: object }>>,
  ) {
    const batchEnded = Promise.all(ended);
    await Promise.all(
      ended.map(async (outcome, i) => {
        const result = await outcome;
        const held = await new Promise<boolean>((resolve) => {
          if (this.#stopping) {
            resolve(true);
            return;
          }
          const release = (): void => {
            clearTimeout(timer);
            this.#holds.delete(release);
            resolve(true);
          };
          const timer = setTimeout(release, HELD_BATCH_MS);
          this.#holds.add(release);
          void batchEnded.then(() => {
            clearTimeout(timer);
            this.#holds.delete(release);
            resolve(false);
          });
        });
        if (held) await this.#settleNow(queue, jobs[i], result);
      }),
    );
    return batchEnded;
  }

  /** A failed task's result on an ordered queue: failed for a retry, or given up on its last attempt (see #settleOrdered). */
  #lastFailure(queue: string, job: { readonly id: string; readonly retryCount: number }, error: unknown) {
    const message = String((error as Error)?.message ?? error);
    if (job.retryCount >= this.settings.retryLimit) {
      this.logger.error(
        { err: error, queue, taskId: job.id, attempts: job.retryCount + 1 },
        'task failed on its last attempt; given up so that its group can go on',
      );
      return { id: job.id, status: 'completed' as const, output: { givenUp: true, message } as object | undefined };
    }
    return { id: job.id, status: 'failed' as const, output: { message } as object | undefined };
  }

  /**
   * Settles one task of a batch that still runs, fenced to the attempt this worker holds (a task
   * the queue took back meanwhile is left alone), and on an ordered queue wakes an idle worker for
   * its group's next task. Completions arriving together share one statement. When it fails the
   * batch's end settles the task as before.
   */
  async #settleNow(
    queue: string,
    job: { readonly id: string; readonly retryCount: number },
    result: { readonly status: 'completed' | 'failed'; readonly output?: object },
  ): Promise<void> {
    const attempt = { id: job.id, retryCount: job.retryCount };
    try {
      if (result.status === 'failed') await this.boss.fail(queue, attempt, result.output);
      else if (result.output !== undefined) await this.boss.complete(queue, attempt, result.output);
      else {
        let completions = this.#completions.get(queue);
        if (completions === undefined) {
          completions = new GroupCommit(
            async (done) => {
              await this.boss.complete(queue, [...done], null);
              return done.map(() => undefined);
            },
            { maxItems: MAX_WRITE },
          );
          this.#completions.set(queue, completions);
        }
        await completions.add(attempt);
      }
      if (this.#ordered.has(queue)) this.#wake(queue);
    } catch (error) {
      this.logger.debug({ err: error, queue, taskId: job.id }, 'settling a task before its batch ended failed; it is settled with the batch');
    }
  }

  /**
   * A task of an ordered queue that pg-boss itself failed on its last attempt — it ran past its
   * queue's time limit, or its worker's heartbeat stopped (a replica killed, on PostgreSQL) — would
   * hold its group's later tasks back until it is deleted, days later. Such tasks are given up
   * instead, as a handler's last failure is (#settleOrdered): one statement per supervise
   * interval, from any process that works an ordered queue (a failed task stays failed, so two
   * replicas releasing the same one at once do the same thing).
   */
  async #releaseGroups(): Promise<void> {
    if (this.#releaseInFlight) return;
    this.#releaseInFlight = true;
    try {
      const { rows } = (await this.boss.getDb().executeSql(
        `UPDATE ${SCHEMA}.job
         SET state = 'completed', completed_on = ${SCHEMA}.job_now(),
             output = jsonb_build_object('givenUp', true, 'message', ${FAILURE_MESSAGE})
         WHERE name = ANY($1::text[]) AND state = 'failed'
         RETURNING name, id, retry_count + 1 AS attempts, output->>'message' AS message`,
        [[...this.#ordered]],
      )) as { rows: Array<{ name: string; id: string; attempts: number; message: string }> };
      for (const row of rows)
        this.logger.error(
          { queue: row.name, taskId: row.id, attempts: Number(row.attempts), reason: row.message },
          'task failed by the queue on its last attempt; given up so that its group can go on',
        );
    } catch (error) {
      // A statement cut off by the queue's own stop is no failure; a database that is down is
      // reported by the look for due tasks, every interval once.
      if (this.#releasing !== undefined) this.logger.debug({ err: error }, 'releasing the groups of failed ordered tasks failed; trying again');
    } finally {
      this.#releaseInFlight = false;
    }
  }

  /**
   * Counted now, in one statement: tasks not yet finished (created, waiting for a retry, running).
   * pg-boss's getQueueStats serves figures its monitor counted up to QUEUE_SUPERVISE_SECONDS
   * (and longer) ago: a drained queue could show tasks, a busy one none.
   */
  async depth(): Promise<Record<string, number>> {
    if (!this.#started) await this.#start().catch(rethrowUnavailable);
    const names = this.#names;
    const { rows } = (await this.boss
      .getDb()
      .executeSql(`SELECT name, count(*)::int AS n FROM ${SCHEMA}.job WHERE name = ANY($1::text[]) AND state < 'completed' GROUP BY name`, [names])
      .catch(rethrowUnavailable)) as {
      rows: Array<{ name: string; n: number }>;
    };
    const result: Record<string, number> = Object.fromEntries(names.map((name) => [name, 0]));
    for (const row of rows) result[row.name] = Number(row.n);
    return result;
  }

  async failed(): Promise<Record<string, number>> {
    if (!this.#started) await this.#start().catch(rethrowUnavailable);
    const result: Record<string, number> = {};
    for (const name of this.#names) {
      const [stats] = await this.boss.getQueueStats(name).catch(rethrowUnavailable);
      result[name] = stats?.failedCount ?? 0;
    }
    return result;
  }

  /** Stops taking tasks and waits up to `timeoutMs` for running ones; unfinished tasks stay stored. */
  async stop(timeoutMs: number): Promise<void> {
    // Never started: nothing to stop, and a use from now on is refused instead of starting it.
    // A start still running is waited for; one that failed closed pg-boss itself.
    if (this.#starting === undefined) {
      this.#starting = Promise.reject(new Error('The task queue was stopped before it started'));
      this.#starting.catch(() => undefined);
      return;
    }
    const started = await this.#starting.then(
      () => true,
      () => false,
    );
    if (!started) return;
    this.#stopping = true;
    // A server that stopped answering: pg-boss's statements under way and its last ones (the
    // running tasks' failure, the instance's end) are each given up on within about the connection
    // bound, not the statement bound (database-bounds.ts, `stopping`).
    this.bounds?.stopping();
    // Tasks that ended beside a long one are settled now, before the stop's wait can run out.
    for (const release of [...this.#holds]) release();
    clearInterval(this.#looking);
    this.#looking = undefined;
    clearInterval(this.#releasing);
    this.#releasing = undefined;
    await this.boss.stop({ graceful: true, timeout: Math.max(timeoutMs, 1), close: true });
  }
}

/**
 * pg-boss runs its statements on a pool of its own (pg's, on PostgreSQL), not the ORM's, whose
 * errors database-unavailable.ts translates: a server that cannot be reached or ended the session
 * (ECONNREFUSED, `Connection terminated`, 57P01, 53300, …) is translated here the same way, to
 * DatabaseUnavailable (503 with Retry-After, not a 500). The embedded database's thread throws
 * DatabaseUnavailable itself, which passes as it is.
 */
const rethrowUnavailable = (error: unknown): never => {
  throw unavailableOr(error);
};

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
