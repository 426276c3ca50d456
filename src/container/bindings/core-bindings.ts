import type { Container } from 'inversify';
import { SCHEDULE_RUN_QUEUE } from '../../application/schedules/run-schedule.js';
import { NodeFetchHttpForwarder } from '../../adapters/forwarder/node-fetch-http-forwarder.js';
import type { Database } from '../../adapters/persistence/database.js';
import { MikroOrmDeliveryLog } from '../../adapters/persistence/mikro-orm-delivery-log.js';
import { PgBossTaskQueue } from '../../adapters/queue/pg-boss-task-queue.js';
import { DEFAULT_HEADROOM, EventLoopHeadroom, withRunQueueWait } from '../../adapters/system/event-loop-headroom.js';
import { NodeTimer } from '../../adapters/system/node-timer.js';
import { join } from 'node:path';
import { FileStartMarks } from '../../adapters/shell/file-start-marks.js';
import { SpawnerShellExecutor } from '../../adapters/shell/spawner/spawner-shell-executor.js';
import { JOB_RUN_QUEUE } from '../../application/jobs/create-job.js';
import { AUTO_MERGE_QUEUE } from '../../application/jobs/auto-merge-job.js';
import { TRIGGER_RUN_ORDERED_QUEUE, TRIGGER_RUN_QUEUE } from '../../application/triggers/fire-triggers.js';
import { CHAT_MESSAGE_QUEUE, LEGACY_CHAT_MESSAGE_QUEUE } from '../../application/messaging/receive-messaging-update.js';
import { CHAT_JOB_FINISHED_QUEUE } from '../../application/messaging/notify-chat-of-job.js';
import { RETENTION_SWEEP_QUEUE } from '../../application/retention/sweep-expired-data.js';
import type { Headroom } from '../../ports/headroom.js';
import type { Logger } from '../../ports/logger.js';
import type { AppConfig } from '../config.js';
import type { Infrastructure } from '../infrastructure.js';
import { bindBasics } from './basic-bindings.js';
import { TOKENS } from '../tokens.js';

/** What every capability shares: logging, the database, time and ids, secrets, the task queue, shell and HTTP out. */
export const bindCore = (c: Container, config: AppConfig, infra: Infrastructure): void => {
  bindBasics(c, config, infra);
  // Commands start from a small process of its own, not from the service (SpawnerShellExecutor).
  // Stopped on unbind once its running commands have finished, or, past SHUTDOWN_TIMEOUT_MS,
  // left to them (they finish without the service, as if it had been killed): a command started
  // later (a task still finishing) starts it again, and it ends with the service.
  c.bind(TOKENS.ShellExecutor)
    .toResolvedValue(() => new SpawnerShellExecutor(), [])
    .onDeactivation((shell) => (shell as SpawnerShellExecutor).close(config.shutdownTimeoutMs));
  // Resolved when the trigger runner is: creating the directory is for the service, not every CLI command.
  c.bind(TOKENS.StartMarks).toResolvedValue(() => new FileStartMarks(join(config.dataDir, 'run-marks')), []);
  c.bind(TOKENS.HttpForwarder).toConstantValue(new NodeFetchHttpForwarder(config.webhook));
  c.bind(TOKENS.DeliveryLog).toResolvedValue((db: Database) => new MikroOrmDeliveryLog(db), [TOKENS.Database]);
  bindTaskQueue(c, config);
};

/** pg-boss's longest running time of a task (its MAX_EXPIRATION_HOURS). */
const LONGEST_TASK_SECONDS = 24 * 60 * 60;

/** The durable task queue (pg-boss in the service's database): started when first used (PgBossTaskQueue.open), stopped on unbind. */
export const bindTaskQueue = (c: Container, config: AppConfig, { manageQueues = true }: { readonly manageQueues?: boolean } = {}): void => {
  // Tasks start (and trigger runs are queued) when the main thread — and the embedded database's
  // thread, which runs the statements of requests and tasks alike — has room: requests first.
  c.bind(TOKENS.Headroom).toResolvedValue(
    (db: Database) =>
      new EventLoopHeadroom(
        [withRunQueueWait(() => performance.eventLoopUtilization()), ...(db.pglite ? [() => db.pglite!.eventLoopUtilization()] : [])],
        { ...DEFAULT_HEADROOM, busyAbove: config.yieldBusyAbove },
        new NodeTimer(),
      ),
    [TOKENS.Database],
  );
  c.bind(TOKENS.TaskQueue)
    .toResolvedValue(
      (db: Database, logger: Logger, headroom: Headroom) =>
        PgBossTaskQueue.open(
          db.pglite ? { pglite: db.pglite } : { connectionString: config.databaseUrl as string, timeouts: config.databaseTimeouts },
          {
            queues: [
              TRIGGER_RUN_QUEUE,
              JOB_RUN_QUEUE,
              AUTO_MERGE_QUEUE,
              LEGACY_CHAT_MESSAGE_QUEUE,
              RETENTION_SWEEP_QUEUE,
              SCHEDULE_RUN_QUEUE,
              CHAT_JOB_FINISHED_QUEUE,
            ],
            orderedQueues: [CHAT_MESSAGE_QUEUE, TRIGGER_RUN_ORDERED_QUEUE],
            pollingIntervalSeconds: 1,
            retryLimit: 3,
            ...config.queue,
            finishedTaskSeconds: config.retention.finishedTaskSeconds,
            manageQueues,
            waitingTaskSeconds: config.retention.waitingTaskSeconds,
            // A job's task runs as long as its time limit (and its report after it): failed and run
            // again before that, the job would be marked failed while its agent still runs. A
            // trigger's or schedule's run may hold commands of up to 24 hours each: its task gets
            // the queue's longest, 24 hours (a dead worker's task is found by its heartbeat instead).
            runningTaskSeconds: {
              [JOB_RUN_QUEUE]: Math.max(6 * 60 * 60, config.jobs.timeoutMs / 1000 + 600),
              [TRIGGER_RUN_QUEUE]: LONGEST_TASK_SECONDS,
              [TRIGGER_RUN_ORDERED_QUEUE]: LONGEST_TASK_SECONDS,
              [SCHEDULE_RUN_QUEUE]: LONGEST_TASK_SECONDS,
            },
          },
          logger.child({ component: 'queue' }),
          headroom,
        ),
      [TOKENS.Database, TOKENS.Logger, TOKENS.Headroom],
    )
    // Longer than the grace period: jobs stopped when it ends still record their outcome.
    .onDeactivation((queue) => (queue as PgBossTaskQueue).stop(config.shutdownTimeoutMs + 15_000));
};
