import { PgBoss, fromPglite, type PGliteLike } from 'pg-boss';
import type { Logger } from '../../ports/Logger.js';
import type { TaskQueue, WorkOptions } from '../../ports/TaskQueue.js';

export interface QueueSettings {
  /** The queues to create at start-up. */
  readonly queues: readonly string[];
  /** Scales how many waiting tasks a queue's worker takes at once (concurrency × BATCH_SIZE) and runs together. */
  readonly concurrency: number;
  /** A task whose worker sent no heartbeat for this long (process killed) is run again. Minimum 10. */
  readonly heartbeatSeconds: number;
  /** How often stale and expired tasks are looked for. */
  readonly superviseIntervalSeconds: number;
  /** Idle polling, the floor under LISTEN/NOTIFY wake-ups. */
  readonly pollingIntervalSeconds: number;
  /** Further attempts after a handler failure, with exponential backoff. */
  readonly retryLimit: number;
}

export type QueueConnection = { readonly pglite: PGliteLike } | { readonly connectionString: string };

const SCHEMA = 'pgboss';
/**
 * A worker fetches up to this many waiting tasks at once and fetches again at once while
 * batches come back full; a batch-of-one worker would wait a polling interval per task.
 */
const BATCH_SIZE = 10;

/**
 * TaskQueue on pg-boss, in the service's own database: tables in the `pgboss` schema,
 * created and migrated by pg-boss itself. Tasks are rows, so they survive restarts and are
 * shared by every replica on the same PostgreSQL.
 */
export class PgBossTaskQueue implements TaskQueue {
  private constructor(private readonly boss: PgBoss, private readonly settings: QueueSettings) {}

  static async start(connection: QueueConnection, settings: QueueSettings, logger: Logger): Promise<PgBossTaskQueue> {
    // Polling, not LISTEN/NOTIFY: with notify on, pg-boss turns polling into a slow backstop and
    // a batchSize-1 worker waits for the next notification even when tasks are waiting.
    // Stale heartbeats are found by pg-boss's queue monitor, which runs at most once per
    // monitorIntervalSeconds (default 60): both follow QUEUE_SUPERVISE_SECONDS.
    const common = {
      schema: SCHEMA,
      superviseIntervalSeconds: settings.superviseIntervalSeconds,
      monitorIntervalSeconds: settings.superviseIntervalSeconds,
      useListenNotify: false,
      schedule: false,
    };
    const boss =
      'pglite' in connection
        ? new PgBoss({ ...common, db: fromPglite(connection.pglite) })
        : new PgBoss({ ...common, connectionString: connection.connectionString, max: 4 });
    boss.on('error', (error: unknown) => logger.error({ err: error }, 'task queue error'));
    boss.on('warning', (warning: unknown) => logger.warn({ warning }, 'task queue warning'));
    await boss.start();
    for (const name of settings.queues) {
      const options = {
        retryLimit: settings.retryLimit,
        retryBackoff: true,
        retryDelay: 2,
        heartbeatSeconds: settings.heartbeatSeconds,
        expireInSeconds: 6 * 60 * 60,
      };
      if (await boss.getQueue(name)) await boss.updateQueue(name, options);
      else await boss.createQueue(name, options);
    }
    return new PgBossTaskQueue(boss, settings);
  }

  async enqueue(queue: string, payload: object, options: { readonly group?: string } = {}): Promise<string> {
    const id = await this.boss.send(queue, payload, options.group === undefined ? {} : { group: { id: options.group } });
    if (id === null) throw new Error(`task queue refused a task for ${queue}`);
    return id;
  }

  async work<T extends object>(
    queue: string,
    handler: (payload: T, task: { id: string; attempt: number }) => Promise<void>,
    options: WorkOptions = {},
  ): Promise<void> {
    const bounded = options.maxConcurrent !== undefined;
    await this.boss.work<T>(
      queue,
      {
        batchSize: bounded ? 1 : this.settings.concurrency * BATCH_SIZE,
        // One poller per queue unless a bound asks for more: each poll is a query, and on the
        // embedded database every query runs on the event loop the HTTP server shares.
        localConcurrency: bounded ? options.maxConcurrent : 1,
        pollingIntervalSeconds: this.settings.pollingIntervalSeconds,
        // Fetch again at once while batches come back full (pg-boss's default waits a poll).
        burstWhenBatchFull: !bounded,
        ...(options.oneAtATimePerGroup ? { localGroupConcurrency: 1 } : {}),
        perJobResults: true,
      },
      async (jobs) => {
        const run = (job: (typeof jobs)[number]) => handler(job.data, { id: job.id, attempt: job.retryCount + 1 });
        // A batch may hold several tasks of one group (a chat's messages): they run one after
        // another in the batch's order, which is creation order; different groups run together.
        const chains = new Map<string, Promise<unknown>>();
        const started = jobs.map((job) => {
          if (!options.oneAtATimePerGroup) return run(job);
          const key = job.groupId ?? job.id;
          const current = (chains.get(key) ?? Promise.resolve()).then(() => run(job));
          chains.set(key, current.catch(() => undefined));
          return current;
        });
        // Each task settles on its own: one failure must not retry the others of the batch.
        const outcomes = await Promise.allSettled(started);
        return jobs.map((job, i) => {
          const outcome = outcomes[i];
          return outcome.status === 'fulfilled'
            ? { id: job.id, status: 'completed' as const }
            : { id: job.id, status: 'failed' as const, output: { message: String((outcome.reason as Error)?.message ?? outcome.reason) } };
        });
      },
    );
  }

  async depth(): Promise<Record<string, number>> {
    const result: Record<string, number> = {};
    for (const name of this.settings.queues) {
      // getQueueStats counts now; getQueues serves the supervisor's cached figures.
      const [stats] = await this.boss.getQueueStats(name);
      result[name] = stats ? stats.queuedCount + stats.activeCount : 0;
    }
    return result;
  }

  async failed(): Promise<Record<string, number>> {
    const result: Record<string, number> = {};
    for (const name of this.settings.queues) {
      const [stats] = await this.boss.getQueueStats(name);
      result[name] = stats?.failedCount ?? 0;
    }
    return result;
  }

  /** Stops taking tasks and waits up to `timeoutMs` for running ones; unfinished tasks stay stored. */
  async stop(timeoutMs: number): Promise<void> {
    await this.boss.stop({ graceful: true, timeout: Math.max(timeoutMs, 1), close: true });
  }
}
