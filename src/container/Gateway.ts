import type { Container } from 'inversify';
import type { Logger as Pino } from 'pino';
import { AdminSocketServer } from '../adapters/http/adminSocket/AdminSocketServer.js';
import { adminSocketPath } from '../adapters/http/adminSocket/adminSocketPath.js';
import { HttpServer } from '../adapters/http/HttpServer.js';
import { createPino, PinoLogger } from '../adapters/logging/PinoLogger.js';
import { Database } from '../adapters/persistence/Database.js';
import { loadTriggerFile } from '../adapters/triggerfile/JsonTriggerFile.js';
import { TRIGGER_RUN_QUEUE, type TriggerRunTask } from '../application/FireTriggers.js';
import { JOB_RUN_QUEUE, type JobRunTask } from '../application/CreateJob.js';
import { CHAT_MESSAGE_QUEUE, LEGACY_CHAT_MESSAGE_QUEUE, type ChatMessageTask } from '../application/ReceiveMessagingUpdate.js';
import { checkTriggerSecrets } from '../application/checkTriggerSecrets.js';
import type { Trigger } from '../domain/triggers/Trigger.js';
import { existsSync } from 'node:fs';
import { buildContainer } from './buildContainer.js';
import { ConfigError, type AppConfig } from './config.js';
import { TOKENS } from './tokens.js';

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
  ) {}

  static async start(config: AppConfig, pino: Pino = createPino(config.logLevel)): Promise<Gateway> {
    const logger = new PinoLogger(pino);
    const triggers = await loadTriggers(config, logger);
    const database = await Database.open({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, logger });
    try {
      const applied = await database.migrate();
      if (applied.length > 0) pino.info({ migrations: applied }, 'database migrated');
      const container = buildContainer(config, { pino, database, triggers, env: process.env });
      const secretProblems = checkTriggerSecrets(triggers, await container.getAsync(TOKENS.SecretStore), config.triggersFile);
      if (secretProblems.length > 0) throw new ConfigError(secretProblems, 'Invalid trigger file');
      await warnAboutUnprotectedWebhook(container);
      const app = await container.getAsync(TOKENS.HttpApp);
      const queue = await container.getAsync(TOKENS.TaskQueue);
      const runTrigger = await container.getAsync(TOKENS.RunTrigger);
      await queue.work<TriggerRunTask>(TRIGGER_RUN_QUEUE, (task) => runTrigger.execute(task));
      const runJob = await container.getAsync(TOKENS.RunJob);
      await queue.work<JobRunTask>(JOB_RUN_QUEUE, (task) => runJob.execute(task), { maxConcurrent: config.jobs.concurrency });
      const replyToChat = await container.getAsync(TOKENS.ReplyToChatMessage);
      // A chat's messages are answered one at a time, in the order stored (the platform's order:
      // it sends one chat's updates one after another), across every replica.
      await queue.work<ChatMessageTask>(CHAT_MESSAGE_QUEUE, (task) => replyToChat.execute(task), { oneAtATimePerGroup: true });
      // Messages stored before an upgrade, in the queue that was ordered within one process only.
      await queue.work<ChatMessageTask>(LEGACY_CHAT_MESSAGE_QUEUE, (task) => replyToChat.execute(task), {
        oneAtATimePerGroup: true,
        orderBy: (task) => task.message.metadata.updateId,
      });
      const admin =
        database.engine === 'pglite'
          ? await AdminSocketServer.listen(
              adminSocketPath(config.dataDir),
              await container.getAsync(TOKENS.KeyAdministration),
              { setAdminPassword: async (password) => (await container.getAsync(TOKENS.AdminAuthentication)).setPassword(password) },
              container.get(TOKENS.Logger),
            )
          : undefined;
      const pollJobs = await container.getAsync(TOKENS.PollJobs);
      const poller =
        pollJobs.needed && config.codehost
          ? setInterval(() => void pollJobs.execute().catch((error: unknown) => logger.warn({ err: error }, 'job polling failed')), config.codehost.pollSeconds * 1000)
          : undefined;
      poller?.unref();
      const http = await HttpServer.listen(app, config.port, config.host);
      pino.info({ port: http.port, host: config.host, database: database.engine, triggers: triggers.length }, 'agent gateway listening');
      return new Gateway(config, container, pino, database, http, admin, poller);
    } catch (error) {
      await database.close().catch(() => undefined);
      throw error;
    }
  }

  get port(): number {
    return this.http.port;
  }

  /**
   * Graceful stop: no new connections, in-flight requests finish; running background tasks
   * get SHUTDOWN_TIMEOUT_MS, then running jobs are stopped (marked failed as interrupted) and
   * whatever is still queued stays for the next start; then the database closes.
   */
  async stop(): Promise<void> {
    this.pino.info({}, 'shutting down');
    if (this.poller) clearInterval(this.poller);
    await this.http.close(this.config.shutdownTimeoutMs);
    await this.adminSocket?.close();
    const runJob = await this.container.getAsync(TOKENS.RunJob);
    const overdue = setTimeout(() => {
      const stopped = runJob.abortAll();
      if (stopped > 0) this.pino.warn({ jobs: stopped }, 'grace period over: stopping running jobs');
    }, this.config.shutdownTimeoutMs);
    await this.container.unbindAllAsync();
    clearTimeout(overdue);
    await this.database.close();
    this.pino.info({}, 'stopped');
  }
}

/** Says at start-up when the chat webhook will refuse every update for want of a secret (it never fails open). */
const warnAboutUnprotectedWebhook = async (container: Container): Promise<void> => {
  await (await container.getAsync(TOKENS.ReceiveMessagingUpdate)).warnIfRefusingEverything();
};

/** The trigger file, validated as a whole: any problem stops start-up with every problem listed. */
const loadTriggers = async (config: AppConfig, logger: PinoLogger): Promise<readonly Trigger[]> => {
  const loaded = await loadTriggerFile(config.triggersFile);
  if (loaded.problems.length > 0) throw new ConfigError(loaded.problems, 'Invalid trigger file');
  if (loaded.missing) logger.info({ file: config.triggersFile }, 'no trigger file; no triggers');
  if (loaded.triggers.some((t) => t.actions.some((a) => a.type === 'command')) && !existsSync(config.triggersDir)) {
    throw new ConfigError([`TRIGGERS_DIR: ${config.triggersDir} does not exist (command actions run there)`]);
  }
  return loaded.triggers;
};
