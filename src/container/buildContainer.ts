import { Container } from 'inversify';
import type { Logger as Pino } from 'pino';
import { ApiKeyAdministration } from '../application/ApiKeyAdministration.js';
import { AuthenticateApiKey } from '../application/AuthenticateApiKey.js';
import { CreateApiKey } from '../application/CreateApiKey.js';
import { CancelJob } from '../application/CancelJob.js';
import { CreateJob, JOB_RUN_QUEUE } from '../application/CreateJob.js';
import { GetJobStatus } from '../application/GetJobStatus.js';
import { RunJob } from '../application/RunJob.js';
import { PollJobs } from '../application/PollJobs.js';
import { ChatAgent } from '../application/ChatAgent.js';
import { CheckReadiness } from '../application/CheckReadiness.js';
import { CollectOperationalFigures } from '../application/CollectOperationalFigures.js';
import { PrometheusMetrics } from '../adapters/http/PrometheusMetrics.js';
import type { JobRepository } from '../ports/JobRepository.js';
import type { ActionRunRepository } from '../ports/ActionRunRepository.js';
import type { TaskQueue } from '../ports/TaskQueue.js';
import { NotifyChatOfJob } from '../application/NotifyChatOfJob.js';
import { NotifyingJobRepository } from '../application/NotifyingJobRepository.js';
import { CHAT_MESSAGE_QUEUE, ReceiveMessagingUpdate } from '../application/ReceiveMessagingUpdate.js';
import { RegisterMessagingWebhook } from '../application/RegisterMessagingWebhook.js';
import { ReplyToChatMessage } from '../application/ReplyToChatMessage.js';
import { TelegramChannel } from '../adapters/messaging/TelegramChannel.js';
import { SqlBotTokenStore } from '../adapters/persistence/SqlBotTokenStore.js';
import { SqlConversationStore } from '../adapters/persistence/SqlConversationStore.js';
import { readFile } from 'node:fs/promises';
import type { BotTokenStore } from '../ports/BotTokenStore.js';
import type { MessagingChannel } from '../ports/MessagingChannel.js';
import { GithubActionsJobRunner } from '../adapters/codehost/GithubActionsJobRunner.js';
import { GithubClient } from '../adapters/codehost/GithubClient.js';
import { GithubEvents } from '../adapters/codehost/GithubEvents.js';
import { LocalJobRunner } from '../adapters/jobs/LocalJobRunner.js';
import { CommandAgent } from '../adapters/jobs/CommandAgent.js';
import { LoopAgent } from '../adapters/jobs/LoopAgent.js';
import { VercelAiClient } from '../adapters/ai/VercelAiClient.js';
import type { SecretStore } from '../ports/SecretStore.js';
import type { ShellExecutor } from '../ports/ShellExecutor.js';
import type { AiClient } from '../ports/AiClient.js';
import { LLM_PROVIDERS, type LlmProvider } from '../domain/triggers/Trigger.js';
import { MikroOrmJobRepository } from '../adapters/persistence/MikroOrmJobRepository.js';
import { EnvironmentSecretStore } from '../adapters/secrets/EnvironmentSecretStore.js';
import { join } from 'node:path';
import { FireTriggers } from '../application/FireTriggers.js';
import { ReceiveCodehostEvent } from '../application/ReceiveCodehostEvent.js';
import { RunTrigger, type RunTriggerSettings } from '../application/RunTrigger.js';
import { TRIGGER_RUN_QUEUE } from '../application/FireTriggers.js';
import { GithubSignatureVerifier } from '../adapters/codehost/GithubSignatureVerifier.js';
import { NodeFetchHttpForwarder } from '../adapters/forwarder/NodeFetchHttpForwarder.js';
import { MikroOrmActionRunRepository } from '../adapters/persistence/MikroOrmActionRunRepository.js';
import { MikroOrmDeliveryLog } from '../adapters/persistence/MikroOrmDeliveryLog.js';
import { PgBossTaskQueue } from '../adapters/queue/PgBossTaskQueue.js';
import { ChildProcessShellExecutor } from '../adapters/shell/ChildProcessShellExecutor.js';
import type { Trigger } from '../domain/triggers/Trigger.js';
import type { Logger } from '../ports/Logger.js';
import { ListApiKeys } from '../application/ListApiKeys.js';
import { RevokeApiKey } from '../application/RevokeApiKey.js';
import { NodeApiKeyCrypto } from '../adapters/crypto/NodeApiKeyCrypto.js';
import { createHttpApp } from '../adapters/http/HttpApp.js';
import { PinoLogger } from '../adapters/logging/PinoLogger.js';
import type { Database } from '../adapters/persistence/Database.js';
import { MikroOrmKeyRepository } from '../adapters/persistence/MikroOrmKeyRepository.js';
import { RandomUuidGenerator } from '../adapters/system/RandomUuidGenerator.js';
import { SystemClock } from '../adapters/system/SystemClock.js';
import type { AppConfig } from './config.js';
import { TOKENS } from './tokens.js';

/** What must exist before the container: opened asynchronously by the caller. */
export interface Infrastructure {
  readonly pino: Pino;
  readonly database: Database;
  /** Where provider secrets are read from (the process environment in production). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The validated trigger file; none for the CLI. */
  readonly triggers?: readonly Trigger[];
}

/**
 * The composition root: every port bound to its adapter, every use case built from
 * ports. Resolve with `getAsync` (some adapters start asynchronously); `unbindAllAsync`
 * stops them. Tests call it with their own infrastructure and rebind what they fake.
 */
export const buildContainer = (config: AppConfig, infra: Infrastructure): Container => {
  const c = new Container({ defaultScope: 'Singleton' });
  c.bind(TOKENS.Config).toConstantValue(config);
  c.bind(TOKENS.Pino).toConstantValue(infra.pino);
  c.bind(TOKENS.Logger).toConstantValue(new PinoLogger(infra.pino));
  c.bind(TOKENS.Database).toConstantValue(infra.database);

  c.bind(TOKENS.Clock).toConstantValue(new SystemClock());
  c.bind(TOKENS.IdGenerator).toConstantValue(new RandomUuidGenerator());
  c.bind(TOKENS.ApiKeyCrypto).toConstantValue(new NodeApiKeyCrypto());
  c.bind(TOKENS.KeyRepository)
    .toResolvedValue(async (db: Database) => {
      const keys = new MikroOrmKeyRepository(db);
      await keys.start();
      return keys;
    }, [TOKENS.Database])
    .onDeactivation((keys) => (keys as MikroOrmKeyRepository).stop());

  c.bind(TOKENS.AuthenticateApiKey).toResolvedValue(
    (...deps: ConstructorParameters<typeof AuthenticateApiKey>) => new AuthenticateApiKey(...deps),
    [TOKENS.KeyRepository, TOKENS.ApiKeyCrypto, TOKENS.Clock, TOKENS.Logger],
  );
  c.bind(TOKENS.CreateApiKey).toResolvedValue(
    (...deps: ConstructorParameters<typeof CreateApiKey>) => new CreateApiKey(...deps),
    [TOKENS.KeyRepository, TOKENS.ApiKeyCrypto, TOKENS.IdGenerator, TOKENS.Clock],
  );
  c.bind(TOKENS.ListApiKeys).toResolvedValue((keys) => new ListApiKeys(keys), [TOKENS.KeyRepository]);
  c.bind(TOKENS.RevokeApiKey).toResolvedValue((keys) => new RevokeApiKey(keys), [TOKENS.KeyRepository]);
  c.bind(TOKENS.KeyAdministration).toResolvedValue(
    (...deps: ConstructorParameters<typeof ApiKeyAdministration>) => new ApiKeyAdministration(...deps),
    [TOKENS.CreateApiKey, TOKENS.ListApiKeys, TOKENS.RevokeApiKey],
  );
  c.bind(TOKENS.SecretStore).toConstantValue(new EnvironmentSecretStore(infra.env));
  c.bind(TOKENS.MessagingChannel).toConstantValue(
    new TelegramChannel({ apiUrl: config.messaging.apiUrl, rateLimitRetries: 3, maxRetryAfterMs: 60_000, timeoutMs: 30_000 }),
  );
  c.bind(TOKENS.BotTokenStore).toResolvedValue((db: Database) => new SqlBotTokenStore(db, config.messaging.botToken), [TOKENS.Database]);
  c.bind(TOKENS.ConversationStore).toResolvedValue((db: Database) => new SqlConversationStore(db), [TOKENS.Database]);
  c.bind(TOKENS.JobRepository).toResolvedValue(
    (db: Database, channel: MessagingChannel, tokens: BotTokenStore, logger: Logger) => {
      const notify = new NotifyChatOfJob(channel, tokens);
      return new NotifyingJobRepository(new MikroOrmJobRepository(db), (job) => notify.execute(job), logger);
    },
    [TOKENS.Database, TOKENS.MessagingChannel, TOKENS.BotTokenStore, TOKENS.Logger],
  );
  c.bind(TOKENS.AiClient).toResolvedValue(
    (secrets: SecretStore) =>
      new VercelAiClient({
        provider: config.llm.provider,
        model: config.llm.model,
        providers: Object.fromEntries(
          LLM_PROVIDERS.map((p) => [p, { apiKey: secrets.providerSecret(p), baseUrl: config.llm.baseUrls[p] }]),
        ) as Record<LlmProvider, { apiKey: string | undefined; baseUrl: string | undefined }>,
        timeoutMs: config.llm.timeoutMs,
        maxRetries: config.llm.maxRetries,
      }),
    [TOKENS.SecretStore],
  );
  c.bind(TOKENS.JobRunner).toResolvedValue(
    (shell: ShellExecutor, secrets: SecretStore, ai: AiClient) => {
      if (config.codehost) return new GithubActionsJobRunner(new GithubClient(config.codehost));
      const agent =
        config.jobs.agentCommand !== undefined
          ? new CommandAgent(config.jobs.agentCommand, config.jobs.timeoutMs, shell, secrets)
          : new LoopAgent(ai, shell, config.jobs.maxSteps, config.jobs.timeoutMs);
      return new LocalJobRunner({ repoDir: config.jobs.repoDir, worktreesDir: join(config.dataDir, 'worktrees') }, agent);
    },
    [TOKENS.ShellExecutor, TOKENS.SecretStore, TOKENS.AiClient],
  );
  c.bind(TOKENS.CreateJob).toResolvedValue(
    (jobs, queue, secrets, ids, clock, logger) =>
      new CreateJob(jobs, queue, secrets, ids, clock, logger, {
        defaultProvider: config.llm.provider,
        defaultModel: config.llm.model,
        unavailableReason:
          config.codehost === undefined && config.jobs.agentCommand === undefined && config.llm.provider === undefined
            ? 'set JOB_AGENT_COMMAND or LLM_PROVIDER, or CODEHOST_TOKEN and CODEHOST_REPO (see docs/jobs.md)'
            : undefined,
      }),
    [TOKENS.JobRepository, TOKENS.TaskQueue, TOKENS.SecretStore, TOKENS.IdGenerator, TOKENS.Clock, TOKENS.Logger],
  );
  c.bind(TOKENS.GetJobStatus).toResolvedValue((jobs) => new GetJobStatus(jobs), [TOKENS.JobRepository]);
  c.bind(TOKENS.RunJob).toResolvedValue(
    (...deps: ConstructorParameters<typeof RunJob>) => new RunJob(...deps),
    [TOKENS.JobRepository, TOKENS.JobRunner, TOKENS.Clock, TOKENS.Logger],
  );
  c.bind(TOKENS.PollJobs).toResolvedValue(
    (...deps: ConstructorParameters<typeof PollJobs>) => new PollJobs(...deps),
    [TOKENS.JobRepository, TOKENS.JobRunner, TOKENS.Clock, TOKENS.Logger],
  );
  c.bind(TOKENS.CodehostEvents).toConstantValue(new GithubEvents());
  const systemPrompt = async (): Promise<string> => (await readFile(config.chat.systemPromptFile, 'utf8').catch(() => '')).trim() || 'You are a helpful assistant.';
  c.bind(TOKENS.ChatAgent).toResolvedValue(
    (ai, conversations, createJob, jobStatus) =>
      new ChatAgent(ai, conversations, createJob, jobStatus, { historyTurns: config.chat.historyTurns, maxSteps: config.chat.maxSteps, systemPrompt }),
    [TOKENS.AiClient, TOKENS.ConversationStore, TOKENS.CreateJob, TOKENS.GetJobStatus],
  );
  c.bind(TOKENS.RegisterMessagingWebhook).toResolvedValue(
    (channel, tokens, logger) => new RegisterMessagingWebhook(channel, tokens, config.messaging.webhookSecret, logger),
    [TOKENS.MessagingChannel, TOKENS.BotTokenStore, TOKENS.Logger],
  );
  c.bind(TOKENS.ReceiveMessagingUpdate).toResolvedValue(
    (channel, crypto, tokens, deliveries, queue, fire, logger) =>
      new ReceiveMessagingUpdate(channel, config.messaging.webhookSecret, crypto, tokens, deliveries, queue, fire, logger),
    [TOKENS.MessagingChannel, TOKENS.ApiKeyCrypto, TOKENS.BotTokenStore, TOKENS.DeliveryLog, TOKENS.TaskQueue, TOKENS.FireTriggers, TOKENS.Logger],
  );
  c.bind(TOKENS.ReplyToChatMessage).toResolvedValue(
    (channel, tokens, agent, logger) => new ReplyToChatMessage(channel, tokens, agent, { allowedChatIds: config.messaging.allowedChatIds }, logger),
    [TOKENS.MessagingChannel, TOKENS.BotTokenStore, TOKENS.ChatAgent, TOKENS.Logger],
  );
  c.bind(TOKENS.CancelJob).toResolvedValue(
    (...deps: ConstructorParameters<typeof CancelJob>) => new CancelJob(...deps),
    [TOKENS.JobRepository, TOKENS.RunJob, TOKENS.Clock],
  );

  c.bind(TOKENS.Triggers).toConstantValue(infra.triggers ?? []);
  c.bind(TOKENS.TaskQueue)
    .toResolvedValue(
      (db: Database, logger: Logger) =>
        PgBossTaskQueue.start(
          db.pglite ? { pglite: db.pglite } : { connectionString: config.databaseUrl as string },
          { queues: [TRIGGER_RUN_QUEUE, JOB_RUN_QUEUE, CHAT_MESSAGE_QUEUE], pollingIntervalSeconds: 1, retryLimit: 3, ...config.queue },
          logger.child({ component: 'queue' }),
        ),
      [TOKENS.Database, TOKENS.Logger],
    )
    // Longer than the grace period: jobs stopped when it ends still record their outcome.
    .onDeactivation((queue) => (queue as PgBossTaskQueue).stop(config.shutdownTimeoutMs + 15_000));
  c.bind(TOKENS.ShellExecutor).toConstantValue(new ChildProcessShellExecutor());
  c.bind(TOKENS.HttpForwarder).toConstantValue(new NodeFetchHttpForwarder(config.webhook));
  c.bind(TOKENS.JobLauncher).toService(TOKENS.CreateJob);
  c.bind(TOKENS.ActionRunRepository).toResolvedValue((db: Database) => new MikroOrmActionRunRepository(db), [TOKENS.Database]);
  c.bind(TOKENS.DeliveryLog).toResolvedValue((db: Database) => new MikroOrmDeliveryLog(db), [TOKENS.Database]);
  c.bind(TOKENS.CodehostSignatureVerifier).toConstantValue(new GithubSignatureVerifier(config.codehostWebhookSecret));
  c.bind(TOKENS.FireTriggers).toResolvedValue(
    (...deps: ConstructorParameters<typeof FireTriggers>) => new FireTriggers(...deps),
    [TOKENS.Triggers, TOKENS.TaskQueue, TOKENS.IdGenerator, TOKENS.Clock, TOKENS.Logger],
  );
  const runSettings: RunTriggerSettings = { triggersDir: config.triggersDir, commandTimeoutMs: config.commandTimeoutMs };
  c.bind(TOKENS.RunTrigger).toResolvedValue(
    (triggers, runs, shell, forwarder, jobs, clock, logger) => new RunTrigger(triggers, runs, shell, forwarder, jobs, clock, logger, runSettings),
    [TOKENS.Triggers, TOKENS.ActionRunRepository, TOKENS.ShellExecutor, TOKENS.HttpForwarder, TOKENS.JobLauncher, TOKENS.Clock, TOKENS.Logger],
  );
  c.bind(TOKENS.ReceiveCodehostEvent).toResolvedValue(
    (...deps: ConstructorParameters<typeof ReceiveCodehostEvent>) => new ReceiveCodehostEvent(...deps),
    [TOKENS.CodehostSignatureVerifier, TOKENS.DeliveryLog, TOKENS.FireTriggers, TOKENS.CodehostEvents, TOKENS.JobRepository, TOKENS.Clock, TOKENS.Logger],
  );

  c.bind(TOKENS.CheckReadiness).toResolvedValue(
    (db: Database, queue: TaskQueue, logger: Logger) =>
      new CheckReadiness([db.readiness(), { name: 'queue', check: async () => void (await queue.depth()) }], logger),
    [TOKENS.Database, TOKENS.TaskQueue, TOKENS.Logger],
  );
  c.bind(TOKENS.HttpApp).toResolvedValue(
    (pino, authenticate, createJob, getJobStatus, fireTriggers, receiveCodehostEvent, registerMessagingWebhook, receiveMessagingUpdate, checkReadiness, queue, jobs, runs) =>
      createHttpApp({
        checkReadiness,
        metrics: new PrometheusMetrics(
          new CollectOperationalFigures(queue as TaskQueue, jobs as JobRepository, runs as ActionRunRepository),
          config.metricsToken,
        ),
        pino,
        authenticate,
        createJob,
        getJobStatus,
        fireTriggers,
        receiveCodehostEvent,
        registerMessagingWebhook,
        receiveMessagingUpdate,
        bodyLimit: config.bodyLimit,
      }),
    [
      TOKENS.Pino,
      TOKENS.AuthenticateApiKey,
      TOKENS.CreateJob,
      TOKENS.GetJobStatus,
      TOKENS.FireTriggers,
      TOKENS.ReceiveCodehostEvent,
      TOKENS.RegisterMessagingWebhook,
      TOKENS.ReceiveMessagingUpdate,
      TOKENS.CheckReadiness,
      TOKENS.TaskQueue,
      TOKENS.JobRepository,
      TOKENS.ActionRunRepository,
    ],
  );
  return c;
};
