import { dirname } from 'node:path';
import type { Container } from 'inversify';
import type { Logger as Pino } from 'pino';
import { AdminSocketServer } from '../adapters/http/admin-socket/admin-socket-server.js';
import { adminSocketPath } from '../adapters/http/admin-socket/admin-socket-path.js';
import type { HttpServer } from '../adapters/http/http-server.js';
import { rejectionLog } from '../adapters/http/middleware/request-log.js';
import { createPino, PinoLogger } from '../adapters/logging/pino-logger.js';
import type { Database } from '../adapters/persistence/database.js';
import { closeEngine } from '../adapters/persistence/open-engine.js';
import { TRIGGER_RUN_ORDERED_QUEUE, TRIGGER_RUN_QUEUE, type TriggerRunTask } from '../application/triggers/fire-triggers.js';
import { JOB_RUN_QUEUE, type JobRunTask } from '../application/jobs/create-job.js';
import { AUTO_MERGE_QUEUE, type AutoMergeTask } from '../application/jobs/auto-merge-job.js';
import { CHAT_MESSAGE_QUEUE, LEGACY_CHAT_MESSAGE_QUEUE, type ChatMessageTask } from '../application/messaging/receive-messaging-update.js';
import { CHAT_JOB_FINISHED_QUEUE, type ChatJobFinishedTask } from '../application/messaging/notify-chat-of-job.js';
import { RETENTION_SWEEP_QUEUE } from '../application/retention/sweep-expired-data.js';
import { buildContainer } from './build-container.js';
import type { AppConfig } from './config.js';
import type { HeadStart } from './head-start.js';
import { listenHttp } from './listen-http.js';
import { checkJobSandbox, loadStartFiles } from './load-start-files.js';
import { watchFiles } from '../adapters/triggerfile/watch-files.js';
import { SCHEDULE_RUN_QUEUE, type ScheduleRunTask } from '../application/schedules/run-schedule.js';
import type { ReloadOutcome } from './config-reloader.js';
import { RELOAD_CHANNEL, reloadListener } from './reload-channel.js';
import { openDatabase } from './open-database.js';
import { explainDatabaseFailure } from './explain-database-failure.js';
import { startRetentionSchedule } from './retention-schedule.js';
import { StartupError } from './startup-error.js';
import { TOKENS } from './tokens.js';
import { channelCredentialHeaders } from './channels/index.js';
import { FileIntakeJournal, leftJournals, setAsideJournal, storeLeftJournals } from '../adapters/intake/file-intake-journal.js';
import { ImportEarlyIntake } from '../application/triggers/import-early-intake.js';
import { SnapshottedKeyRepository } from '../application/auth/snapshotted-key-repository.js';
import { clearStartingMark, earlyIntakeFiles } from './early-intake-files.js';
import type { DispatchTriggerRuns } from '../application/triggers/dispatch-trigger-runs.js';
import type { KeyRepository } from '../ports/key-repository.js';
import type { Logger } from '../ports/logger.js';

/** Changes to the configuration files closer together than this are one reload (an editor's save is several events). */
const RELOAD_DEBOUNCE_MS = 200;
/** How often jobs stored without their task (RequeueStrandedJobs) and chat jobs finished without their notice (RequeueLostJobNotices) are looked for. */
const REQUEUE_EVERY_MS = 5 * 60_000;

/** The running service: database, container, HTTP server and, on the embedded database, the admin socket. */
export class Gateway {
  private constructor(
    readonly config: AppConfig,
    readonly container: Container,
    private readonly pino: Pino,
    private readonly database: Database,
    private readonly http: HttpServer,
    private readonly adminSocket: AdminSocketServer | undefined,
    private readonly poller: NodeJS.Timeout | undefined,
    private readonly retentionSchedule: NodeJS.Timeout,
    /** The chat pollers (channels in polling mode): stopped first on shutdown. */
    private readonly updatePolling: { readonly stop: AbortController; readonly done: Promise<void> },
    /** Records approvals that ran out of time as expired (any replica; each once). */
    private readonly approvalExpiry: NodeJS.Timeout,
    /** Stops watching the configuration files and listening for reload notifications. */
    private readonly stopReloads: () => Promise<void>,
    /**
     * Queues the task of a job stored without it (RequeueStrandedJobs), and the notice of a chat
     * job finished without it (RequeueLostJobNotices): the timer, and the pass under way (waited
     * for at a stop, before the database closes under it).
     */
    private readonly requeueJobs: { readonly timer: NodeJS.Timeout; readonly pass: () => Promise<unknown> },
    /** The early intake's journal (its import's, on the embedded database): closed at a stop, after the last pass. */
    private readonly earlyJournal: { close(): Promise<void> } | undefined,
  ) {}

  /**
   * Starts the service, taking over what the entry opened first (`head`, see head-start.ts).
   * A failure at any step closes what earlier steps opened (the port, the database, the task
   * queue, the admin socket) and rejects: with StartupError or ConfigError when a setting or
   * file is to blame.
   */
  static async start(config: AppConfig, pino: Pino = createPino(config.logLevel, undefined, channelCredentialHeaders()), head?: HeadStart): Promise<Gateway> {
    const logger = new PinoLogger(pino);
    /** What is open so far; closed in reverse order when a later step fails. */
    const opened: Array<() => Promise<unknown>> = [];
    try {
      // The trigger file and the port first (unless the entry did that already): a bad file or a
      // port in use stops start-up before the database is opened. Requests wait for
      // `http.serve` below (HttpServer: at most STARTING_HOLD, then 503).
      const { triggers, schedules } = head ?? (await loadStartFiles(config, logger));
      const http = head?.http ?? (await listenHttp(config));
      opened.push(() => http.close(0));
      if (head) opened.push(() => head.engine.then(closeEngine, () => undefined));
      // JOB_SANDBOX=bwrap (the entry checked it before its early intake answered anything).
      if (head === undefined) await checkJobSandbox(config);
      const database = await openDatabase(config, logger, head?.engine);
      opened.push(() => database.close());
      // Refused or failed migrations say which setting to look at (DATA_DIR: / DATABASE_URL:), as the CLI's do.
      const applied = await database.migrate().catch((error: unknown) => {
        throw explainDatabaseFailure(error);
      });
      if (applied.length > 0) pino.info({ migrations: applied }, 'database migrated');
      const container = buildContainer(config, { pino, database, triggers, schedules, env: process.env });
      // Stops the task queue (and its pollers, which would otherwise keep the process alive).
      opened.push(() => container.unbindAllAsync());
      const reloader = await container.getAsync(TOKENS.ConfigReloader);
      await warnAboutUnprotectedWebhook(container);
      const app = await container.getAsync(TOKENS.HttpApp);
      const queue = await container.getAsync(TOKENS.TaskQueue);
      const runTrigger = await container.getAsync(TOKENS.RunTrigger);
      const runJob = await container.getAsync(TOKENS.RunJob);
      const replyToChat = await container.getAsync(TOKENS.ReplyToChatMessage);
      const admin =
        database.engine === 'pglite'
          ? await AdminSocketServer.listen(
              adminSocketPath(config.dataDir),
              await container.getAsync(TOKENS.KeyAdministration),
              {
                setAdminPassword: async (password) => (await container.getAsync(TOKENS.AdminAuthentication)).setPassword(password),
                migrations: async () => ({ appliedAtStart: applied, recorded: await database.recordedMigrations() }),
                reload: () => reloader.reload('cli'),
                deliveries: await container.getAsync(TOKENS.DeliveryHistory),
                replay: async (requestId) => (await container.getAsync(TOKENS.FireTriggers)).replay(requestId),
              },
              container.get(TOKENS.Logger),
            ).catch((error: unknown) => {
              throw new StartupError('DATA_DIR', `cannot serve the admin socket in ${config.dataDir} (${(error as Error).message})`, { cause: error });
            })
          : undefined;
      if (admin) opened.push(() => admin.close());
      const pollJobs = await container.getAsync(TOKENS.PollJobs);
      const dispatch = await container.getAsync(TOKENS.DispatchTriggerRuns);
      opened.push(() => dispatch.stop());
      // Requests are served once everything that a setting or a file can make fail has been
      // checked and opened, before the background parts start (the task queue's own start,
      // workers, scheduler, reload listeners, timers, pollers; docs/architecture.md, the
      // paragraphs on start-up): a request stores its work and queues its tasks, which wait for
      // the queue's start and the workers as they would for a busy insert or a free worker.
      // Only the database or the task queue failing now can still end the start; what was
      // accepted is stored and runs after the next start.
      const metrics = await container.getAsync(TOKENS.Metrics);
      // The early intake (head-start.ts) answered what it could while the database opened: it
      // stops now, its requests all in its journal, and the app answers from here on. The
      // journal's requests are stored in the database by the first requeue pass below.
      await head?.early?.intake.stop();
      http.serve(
        app,
        rejectionLog(pino, (route, method, status, seconds) => metrics.observe(route, method, status, seconds)),
      );
      for (const [route, method, status, seconds] of head?.early?.observed ?? []) metrics.observe(route, method, status, seconds);
      // This start serves: the next one may take requests in early again (early-intake-start.ts).
      if (database.engine === 'pglite')
        await clearStartingMark(config.dataDir).catch((error: unknown) => logger.warn({ err: error }, 'the next start will not take requests in early'));
      // The workers last (the first begins the task queue's start, unless a request did, and
      // each waits for it; a failed start fails here with its error): a start that fails never
      // leaves a task half-run.
      await queue.work<TriggerRunTask>(TRIGGER_RUN_QUEUE, (task, { id, signal }) => runTrigger.execute(task, { signal, taskId: id }));
      // Triggers with `concurrency`: each lane one run at a time, in order, across every replica.
      await queue.work<TriggerRunTask>(TRIGGER_RUN_ORDERED_QUEUE, (task, { id, signal }) => runTrigger.execute(task, { signal, taskId: id, ordered: true }), {
        oneAtATimePerGroup: true,
      });
      // The task's signal stops its job when the queue takes the task back (RunJob).
      await queue.work<JobRunTask>(JOB_RUN_QUEUE, (task, { attempt, signal }) => runJob.execute(task, { attempt, signal }), {
        maxConcurrent: config.jobs.concurrency,
      });
      if (config.codehost?.autoMerge) {
        const autoMerge = await container.getAsync(TOKENS.AutoMergeJob);
        await queue.work<AutoMergeTask>(AUTO_MERGE_QUEUE, (task) => autoMerge.execute(task), { maxConcurrent: 1 });
      }
      // A chat's messages are answered one at a time, in the order stored (the platform's order:
      // it sends one chat's updates one after another), across every replica.
      // The task tells the answer which attempt it is: a task run again (after a kill) creates no
      // second job and sends no second reply (docs/chat.md, "An answer interrupted").
      await queue.work<ChatMessageTask>(CHAT_MESSAGE_QUEUE, (task, running) => replyToChat.execute(task, running), { oneAtATimePerGroup: true });
      // Messages stored before an upgrade, in the queue that was ordered within one process only.
      await queue.work<ChatMessageTask>(LEGACY_CHAT_MESSAGE_QUEUE, (task, running) => replyToChat.execute(task, running), {
        oneAtATimePerGroup: true,
        // Those tasks carry the platform's update id as a number (ids are strings since).
        orderBy: (task) => Number(task.message.metadata.updateId),
      });
      // A finished chat job's notice, stored the moment it finished: sent once, tried again while the platform fails.
      const notifyChat = await container.getAsync(TOKENS.NotifyChatOfJob);
      const jobs = await container.getAsync(TOKENS.JobRepository);
      await queue.work<ChatJobFinishedTask>(CHAT_JOB_FINISHED_QUEUE, (task) => notifyChat.run(task, jobs));
      // Retention: one sweep per period across replicas, run by whichever worker takes it.
      const sweep = await container.getAsync(TOKENS.SweepExpiredData);
      await queue.work(RETENTION_SWEEP_QUEUE, async () => void (await sweep.execute()), { maxConcurrent: 1 });
      // Schedules: each occurrence is enqueued by every replica's scheduler under one key, so one task
      // is stored, run by whichever worker takes it; missed occurrences are caught up first.
      const runSchedule = await container.getAsync(TOKENS.RunSchedule);
      await queue.work<ScheduleRunTask>(SCHEDULE_RUN_QUEUE, (task, { id, signal }) => runSchedule.execute(task, id, signal));
      const scheduler = await container.getAsync(TOKENS.Scheduler);
      await scheduler.start();
      opened.push(async () => scheduler.stop());
      // Live reload: on a change of either file, on SIGHUP (serve.ts) and on `agent-gateway reload`
      // (the admin socket, or NOTIFY agw_reload on PostgreSQL, heard by every replica).
      const reload = (reason: string): void =>
        void reloader.reload(reason).catch((error: unknown) => logger.error({ err: error, reason }, 'configuration reload failed'));
      const unwatch = config.configWatch
        ? watchFiles([config.triggersFile, config.cronsFile], () => reload('file change'), RELOAD_DEBOUNCE_MS)
        : () => undefined;
      opened.push(async () => unwatch());
      const unlisten = await database.listen(RELOAD_CHANNEL, reloadListener(reload));
      opened.push(unlisten);
      // The files were read before the watcher and the listener were in place: a change since is caught up now.
      void reloader.reloadIfChanged('changed while the service started').catch((error: unknown) => logger.error({ err: error }, 'configuration reload failed'));
      const stopReloads = async (): Promise<void> => {
        unwatch();
        await unlisten();
      };
      const retentionSchedule = startRetentionSchedule(await container.getAsync(TOKENS.ScheduleRetentionSweep), logger);
      opened.push(async () => clearInterval(retentionSchedule));
      const expireApprovals = await container.getAsync(TOKENS.ExpireApprovals);
      // A quarter of the approval time, between 1 s and a minute: an undecided action is recorded
      // as expired soon after its time (a decision after it is refused in any case).
      // Jobs stored without their task, and chat jobs finished without their notice (a stop between
      // the two writes): queued now and every 5 minutes.
      const requeueJobs = await container.getAsync(TOKENS.RequeueStrandedJobs);
      const requeueNotices = await container.getAsync(TOKENS.RequeueLostJobNotices);
      // Requests the early intake took in (at this start, or at one that failed or stopped
      // before storing them): stored and queued by the first pass; a pass that failed is
      // tried again by the next one.
      const keys = await container.getAsync(TOKENS.KeyRepository);
      const importEarly = database.engine === 'pglite' ? await earlyIntakeImport(config, head, keys, container, dispatch, logger) : undefined;
      if (database.engine === 'postgresql') void warnOfJournalLeftBehind(config, logger);
      if (importEarly !== undefined) opened.push(() => importEarly.journal.close());
      // The running service's intake (JournaledIntake, the embedded database only): what a stop
      // or a crash left in its journals is stored first, by the first pass below that can; the
      // intake takes requests from then on (until then they are stored before their answer).
      const startIntake = await journaledIntakeStart(config, container, keys, dispatch, logger);
      opened.push(() => startIntake.stop());
      // Keys may have changed while the service was down (the CLI on the database): the snapshot
      // the next start's early intake reads is written again.
      const snapshotWritten =
        keys instanceof SnapshottedKeyRepository
          ? keys.refresh().catch((error: unknown) => logger.warn({ err: error }, 'could not write the snapshot of API key digests'))
          : Promise.resolve();
      opened.push(() => snapshotWritten);
      // The pass under way is waited for at a stop, before the database closes under it.
      let requeueing: Promise<unknown> = Promise.resolve();
      const requeue = (): void => {
        requeueing = Promise.all([
          importEarly?.use
            .execute()
            .catch((error: unknown) =>
              logger.error({ err: error }, 'storing the requests taken in while the database opened failed; tried again in 5 minutes'),
            ),
          startIntake.start().catch((error: unknown) =>
            logger.error(
              { err: error },
              // What still works: the intake may take requests while only set-aside journals failed to be stored.
              startIntake.taking()
                ? 'storing the intake journals set aside failed (they are kept): requests are still made durable in the intake journal before their answer; tried again in 5 minutes'
                : 'setting the intake journals aside or storing them failed: requests are stored in the database before their answer until a pass succeeds; tried again in 5 minutes',
            ),
          ),
          requeueJobs.execute().catch((error: unknown) => logger.warn({ err: error }, 'looking for jobs without their task failed')),
          requeueNotices.execute().catch((error: unknown) => logger.warn({ err: error }, 'looking for chat jobs without their notice failed')),
        ]);
      };
      requeue();
      const requeueTimer = setInterval(requeue, REQUEUE_EVERY_MS);
      requeueTimer.unref();
      opened.push(async () => {
        clearInterval(requeueTimer);
        await requeueing;
      });
      const approvalExpiry = setInterval(
        () => void expireApprovals.execute().catch((error: unknown) => logger.warn({ err: error }, 'expiring approvals failed')),
        Math.min(60_000, Math.max(1000, config.approvalTimeoutMs / 4)),
      );
      approvalExpiry.unref();
      opened.push(async () => clearInterval(approvalExpiry));
      const poller =
        pollJobs.needed && config.codehost
          ? setInterval(
              () => void pollJobs.execute().catch((error: unknown) => logger.warn({ err: error }, 'job polling failed')),
              config.codehost.pollSeconds * 1000,
            )
          : undefined;
      poller?.unref();
      if (poller !== undefined)
        opened.push(async () => {
          clearInterval(poller);
          await pollJobs.stop();
        });
      // Channels in polling mode fetch their updates (one replica per channel polls).
      const stopPolling = new AbortController();
      const polling = (await container.getAsync(TOKENS.PollMessagingUpdates)).execute(stopPolling.signal);
      opened.push(async () => {
        stopPolling.abort();
        await polling;
      });
      // Trigger runs of requests stored before this start but not queued (a crash between the two)
      // are queued now, in the background, once requests are served; then the runs of each new
      // request after its answer.
      dispatch.start();
      // startupMs: since the process started (performance's time origin).
      pino.info(
        {
          port: http.port,
          host: config.host,
          // The process to send SIGTERM to, and where its files are (DATA_DIR, resolved).
          pid: process.pid,
          dataDir: config.dataDir,
          database: database.engine,
          triggers: triggers.length,
          schedules: schedules.length,
          startupMs: Math.round(performance.now()),
        },
        'agent gateway listening',
      );
      // The model's client gets ready once the service has room, instead of at the first chat
      // message: loading the AI SDK holds the main thread ~0.1–0.2 s, and the first batch of
      // replies all waited for it, then started together (bench/README.md, "Measurements behind
      // the code"). Only with a configured provider; the memory is what the first call takes anyway.
      if (config.llm.provider !== undefined) {
        const ai = await container.getAsync(TOKENS.AiClient);
        const headroom = await container.getAsync(TOKENS.Headroom);
        const began = performance.now();
        void headroom
          .wait()
          .then(() => ai.prepare?.())
          .then(() => logger.debug({ provider: config.llm.provider, ms: Math.round(performance.now() - began) }, 'model client prepared'))
          .catch((error: unknown) => logger.debug({ err: error }, 'preparing the model client failed'));
      }
      return new Gateway(
        config,
        container,
        pino,
        database,
        http,
        admin,
        poller,
        retentionSchedule,
        { stop: stopPolling, done: polling },
        approvalExpiry,
        stopReloads,
        { timer: requeueTimer, pass: () => requeueing },
        importEarly?.journal,
      );
    } catch (error) {
      // The early intake answers nothing more, and what it took in is in its journal (and
      // answered), before the database closes and the port's connections are cut.
      await head?.early?.intake.stop();
      for (const close of opened.reverse())
        await close().catch((closeError: unknown) => logger.debug({ err: closeError }, 'closing after a failed start failed'));
      throw error;
    }
  }

  /** Reloads the trigger and schedule files (SIGHUP): see ConfigReloader. */
  async reload(reason: string): Promise<ReloadOutcome> {
    return (await this.container.getAsync(TOKENS.ConfigReloader)).reload(reason);
  }

  get port(): number {
    return this.http.port;
  }

  /**
   * Graceful stop: no new connections, in-flight requests finish; running background tasks
   * get SHUTDOWN_TIMEOUT_MS, then running jobs are stopped (marked failed as interrupted) and
   * whatever is still queued stays for the next start; then the database closes. `signal`: the
   * one that asked for the stop (serve.ts), named in its `shutting down` line.
   */
  async stop(signal?: NodeJS.Signals): Promise<void> {
    this.pino.info(signal === undefined ? {} : { signal }, 'shutting down');
    // A statement held by a PostgreSQL server that stopped answering is given up on within the
    // connection bound, not the statement bound; one a working server is slow to answer is not.
    this.database.stopping();
    if (this.poller) {
      clearInterval(this.poller);
      // Its poll under way ends before its next job, and its lease is given up: another replica polls at once.
      await (await this.container.getAsync(TOKENS.PollJobs)).stop();
    }
    clearInterval(this.retentionSchedule);
    clearInterval(this.approvalExpiry);
    clearInterval(this.requeueJobs.timer);
    // The long poll is aborted: no update is fetched that could not be stored.
    this.updatePolling.stop.abort();
    await this.updatePolling.done;
    await this.stopReloads().catch(() => undefined);
    (await this.container.getAsync(TOKENS.Scheduler)).stop();
    await this.http.close(this.config.shutdownTimeoutMs);
    await this.adminSocket?.close();
    let overdue: NodeJS.Timeout | undefined;
    try {
      // Waited for at most the grace period: a pass stuck on an unreachable database does not hold the stop.
      let graceOver: NodeJS.Timeout | undefined;
      await Promise.race([this.requeueJobs.pass(), new Promise((over) => (graceOver = setTimeout(over, this.config.shutdownTimeoutMs)))]).finally(() =>
        clearTimeout(graceOver),
      );
      // The requests answered from the intake's journal are stored, then the runs of the requests
      // answered so far are queued before the queue stops.
      await (await this.container.getAsync(TOKENS.JournaledIntake))?.stop();
      for (const journal of await this.container.getAsync(TOKENS.IntakeJournals)) await journal.close();
      await this.earlyJournal?.close();
      await (await this.container.getAsync(TOKENS.DispatchTriggerRuns)).stop();
      const runJob = await this.container.getAsync(TOKENS.RunJob);
      overdue = setTimeout(() => {
        const stopped = runJob.abortAll();
        if (stopped > 0) this.pino.warn({ jobs: stopped }, 'grace period over: stopping running jobs');
      }, this.config.shutdownTimeoutMs);
      await this.container.unbindAllAsync();
    } finally {
      clearTimeout(overdue);
      // Also when a step failed (an engine that died fails them): the lock of the embedded
      // database is released, so that the next start, in a new container too, opens it at once.
      await this.database.close();
    }
    this.pino.info({}, 'stopped');
  }
}

/** Says at start-up when the chat webhook will refuse every update for want of a secret (it never fails open). */
const warnAboutUnprotectedWebhook = async (container: Container): Promise<void> => {
  await (await container.getAsync(TOKENS.ReceiveMessagingUpdate)).warnIfRefusingEverything();
};

/**
 * The import of the early intake's journal (ImportEarlyIntake), on the journal the early intake
 * wrote at this start, or on the file when it did not run (no key snapshot yet): a start that
 * failed after taking requests in left them there.
 */
const earlyIntakeImport = async (
  config: AppConfig,
  head: HeadStart | undefined,
  keys: KeyRepository,
  container: Container,
  dispatch: DispatchTriggerRuns,
  logger: Logger,
): Promise<{ readonly use: ImportEarlyIntake; readonly journal: FileIntakeJournal }> => {
  const journal = head?.early?.journal ?? new FileIntakeJournal(earlyIntakeFiles(config.dataDir).journal);
  const use = new ImportEarlyIntake(
    journal,
    keys,
    await container.getAsync(TOKENS.ApiKeyCrypto),
    await container.getAsync(TOKENS.InboundRequestStore),
    dispatch,
    logger,
    undefined,
    await container.getAsync(TOKENS.Headroom),
  );
  return { use, journal };
};

/**
 * The running service's intake (JournaledIntake): `start`, called by every background pass, has
 * it take requests once what its journals hold is stored (requests answered before a stop, a crash
 * or a failed store, each once, by id); it does nothing while the intake takes requests, or where
 * there is none (PostgreSQL). `stop` stops it and closes its journals (a start that failed later).
 * `taking`: whether the intake takes requests.
 */
const journaledIntakeStart = async (
  config: AppConfig,
  container: Container,
  keys: KeyRepository,
  dispatch: DispatchTriggerRuns,
  logger: Logger,
): Promise<{ readonly start: () => Promise<void>; readonly stop: () => Promise<void>; readonly taking: () => boolean }> => {
  const intake = await container.getAsync(TOKENS.JournaledIntake);
  const journals = await container.getAsync(TOKENS.IntakeJournals);
  if (intake === null) return { start: async () => undefined, stop: async () => undefined, taking: () => false };
  const crypto = await container.getAsync(TOKENS.ApiKeyCrypto);
  const store = await container.getAsync(TOKENS.InboundRequestStore);
  const headroom = await container.getAsync(TOKENS.Headroom);
  const files = earlyIntakeFiles(config.dataDir).requests;
  // What the journals hold is set aside (renamed), so that the intake takes requests at once,
  // into empty journals, while it is stored.
  const setAside = async (): Promise<void> => {
    for (const [i, journal] of journals.entries()) {
      await journal.close();
      await setAsideJournal(files[i]);
    }
    for (const journal of journals) await journal.open();
  };
  // Each set-aside journal stored, then removed; one that fails stays for the next pass or start,
  // and the others are still stored.
  const storeSetAside = (): Promise<void> =>
    storeLeftJournals(
      dirname(files[0]),
      (journal) => new ImportEarlyIntake(journal, keys, crypto, store, dispatch, logger, 'answered before they could be stored', headroom).execute(),
      (file, error) =>
        logger.error({ err: error, file }, 'storing the requests of a set-aside intake journal failed: the file is kept, tried again by the next pass'),
    );
  let storing: Promise<void> | undefined;
  return {
    start: async () => {
      // The journals set aside before are stored even when setting the current ones aside fails
      // (the intake then takes nothing, and the pass fails with that error).
      const failures: unknown[] = [];
      await intake.resume(setAside).catch((error: unknown) => failures.push(error));
      // One at a time: a pass that comes while the last one still stores joins it.
      storing ??= storeSetAside().finally(() => {
        storing = undefined;
      });
      await storing.catch((error: unknown) => failures.push(error));
      if (failures.length === 1) throw failures[0];
      if (failures.length > 1) throw new AggregateError(failures, 'setting the intake journals aside failed, and storing those set aside before failed');
    },
    stop: async () => {
      await intake.stop();
      for (const journal of journals) await journal.close();
    },
    taking: () => intake.taking,
  };
};

/**
 * On PostgreSQL: requests an embedded start took in (its early intake) and could not store are
 * stored only by a start on that embedded database; said once, at error level, so that a move to
 * PostgreSQL right after a crash does not leave them unnoticed.
 */
const warnOfJournalLeftBehind = async (config: AppConfig, logger: Logger): Promise<void> => {
  const files = earlyIntakeFiles(config.dataDir);
  try {
    let requests = 0;
    for (const file of [files.journal, ...files.requests, ...(await leftJournals(dirname(files.journal)))])
      requests += (await new FileIntakeJournal(file).read()).entries.length;
    if (requests > 0)
      logger.error(
        { requests, dir: dirname(files.journal) },
        'requests answered on the embedded database are not stored in it yet (its intake journals): start the service once on the embedded database (DATABASE_URL unset) to store and run them',
      );
  } catch {
    // Nothing to say about a journal that cannot be read here.
  }
};
