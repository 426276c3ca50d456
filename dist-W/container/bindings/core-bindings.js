import { SCHEDULE_RUN_QUEUE } from '../../application/schedules/run-schedule.js';
import { NodeFetchHttpForwarder } from '../../adapters/forwarder/node-fetch-http-forwarder.js';
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
import { RETENTION_SWEEP_QUEUE } from '../../application/retention/sweep-expired-data.js';
import { bindBasics } from './basic-bindings.js';
import { TOKENS } from '../tokens.js';
/** What every capability shares: logging, the database, time and ids, secrets, the task queue, shell and HTTP out. */
export const bindCore = (c, config, infra) => {
    bindBasics(c, config, infra);
    // Commands start from a small process of its own, not from the service (SpawnerShellExecutor).
    // Stopped on unbind once its running commands have finished; a command started later (a task
    // still finishing) starts it again, and it ends with the service.
    c.bind(TOKENS.ShellExecutor)
        .toResolvedValue(() => new SpawnerShellExecutor(), [])
        .onDeactivation((shell) => shell.close());
    // Resolved when the trigger runner is: creating the directory is for the service, not every CLI command.
    c.bind(TOKENS.StartMarks).toResolvedValue(() => new FileStartMarks(join(config.dataDir, 'run-marks')), []);
    c.bind(TOKENS.HttpForwarder).toConstantValue(new NodeFetchHttpForwarder(config.webhook));
    c.bind(TOKENS.DeliveryLog).toResolvedValue((db) => new MikroOrmDeliveryLog(db), [TOKENS.Database]);
    bindTaskQueue(c, config);
};
/** The durable task queue (pg-boss in the service's database): started when first used (PgBossTaskQueue.open), stopped on unbind. */
export const bindTaskQueue = (c, config) => {
    // Tasks start (and trigger runs are queued) when the main thread — and the embedded database's
    // thread, which runs the statements of requests and tasks alike — has room: requests first.
    c.bind(TOKENS.Headroom).toResolvedValue((db) => new EventLoopHeadroom([withRunQueueWait(() => performance.eventLoopUtilization()), ...(db.pglite ? [() => db.pglite.eventLoopUtilization()] : [])], { ...DEFAULT_HEADROOM, busyAbove: config.yieldBusyAbove }, new NodeTimer()), [TOKENS.Database]);
    c.bind(TOKENS.TaskQueue)
        .toResolvedValue((db, logger, headroom) => PgBossTaskQueue.open(db.pglite ? { pglite: db.pglite } : { connectionString: config.databaseUrl }, {
        queues: [TRIGGER_RUN_QUEUE, JOB_RUN_QUEUE, AUTO_MERGE_QUEUE, LEGACY_CHAT_MESSAGE_QUEUE, RETENTION_SWEEP_QUEUE, SCHEDULE_RUN_QUEUE],
        orderedQueues: [CHAT_MESSAGE_QUEUE, TRIGGER_RUN_ORDERED_QUEUE],
        pollingIntervalSeconds: 1,
        retryLimit: 3,
        ...config.queue,
        finishedTaskSeconds: config.retention.finishedTaskSeconds,
        waitingTaskSeconds: config.retention.waitingTaskSeconds,
    }, logger.child({ component: 'queue' }), headroom), [TOKENS.Database, TOKENS.Logger, TOKENS.Headroom])
        // Longer than the grace period: jobs stopped when it ends still record their outcome.
        .onDeactivation((queue) => queue.stop(config.shutdownTimeoutMs + 15_000));
};
//# sourceMappingURL=core-bindings.js.map