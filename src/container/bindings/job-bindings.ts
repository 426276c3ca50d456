import { join } from 'node:path';
import type { Container } from 'inversify';
import { AI_PROVIDER_NAMES, AI_PROVIDERS } from '../../adapters/ai/ai-providers.js';
import { VercelAiClient } from '../../adapters/ai/vercel-ai-client.js';
import { GITHUB_ACTIONS_MAX_PROMPT_BYTES, GithubActionsJobRunner } from '../../adapters/codehost/github-actions-job-runner.js';
import { GithubClient } from '../../adapters/codehost/github-client.js';
import { COMMAND_AGENT_MAX_PROMPT_BYTES, CommandAgent } from '../../adapters/jobs/command-agent.js';
import { LocalJobRunner } from '../../adapters/jobs/local-job-runner.js';
import { LoopAgent } from '../../adapters/jobs/loop-agent.js';
import type { Database } from '../../adapters/persistence/database.js';
import { MikroOrmJobRepository } from '../../adapters/persistence/mikro-orm-job-repository.js';
import { MikroOrmPollerLease } from '../../adapters/persistence/mikro-orm-poller-lease.js';
import { postgresSocketDirs } from '../../adapters/persistence/postgres-socket-dirs.js';
import { BwrapSandboxedShell, findBwrap } from '../../adapters/shell/bwrap-sandboxed-shell.js';
import { NodeTimer } from '../../adapters/system/node-timer.js';
import { CancelJob } from '../../application/jobs/cancel-job.js';
import { CreateJob } from '../../application/jobs/create-job.js';
import { CreateJobOnce } from '../../application/jobs/create-job-once.js';
import { MikroOrmIdempotencyKeyStore } from '../../adapters/persistence/mikro-orm-idempotency-key-store.js';
import { GetJobStatus } from '../../application/jobs/get-job-status.js';
import { NotifyChatOfJob, queueChatJobNotice } from '../../application/messaging/notify-chat-of-job.js';
import { RequeueStrandedJobs } from '../../application/jobs/requeue-stranded-jobs.js';
import { RequeueLostJobNotices } from '../../application/messaging/requeue-lost-job-notices.js';
import { NotifyingJobRepository } from '../../application/jobs/notifying-job-repository.js';
import { PollJobs } from '../../application/jobs/poll-jobs.js';
import { AutoMergeJob, RequestAutoMerge } from '../../application/jobs/auto-merge-job.js';
import { GithubPullRequests } from '../../adapters/codehost/github-pull-requests.js';
import { compileGlobs } from '../../domain/jobs/allowed-paths.js';
import { RunJob } from '../../application/jobs/run-job.js';
import type { AiClient } from '../../ports/ai-client.js';
import type { Logger } from '../../ports/logger.js';
import type { Clock } from '../../ports/clock.js';
import type { TaskQueue } from '../../ports/task-queue.js';
import type { JobRepository } from '../../ports/job-repository.js';
import type { JobRunner } from '../../ports/job-runner.js';
import type { MessagingChannels } from '../../application/messaging/messaging-channels.js';
import type { SecretStore } from '../../ports/secret-store.js';
import type { ShellExecutor } from '../../ports/shell-executor.js';
import type { AppConfig } from '../config.js';
import { TOKENS } from '../tokens.js';
import { jobsUnavailableReason } from '../jobs-availability.js';

/**
 * Why the built-in agent could not run a job of this provider and model: a provider that needs a
 * server of one's own (`custom`) without its URL, or without a model (it has no default one).
 */
export const builtInAgentProblem =
  (config: AppConfig) =>
  (provider: string, model: string | undefined): string | undefined => {
    const known = AI_PROVIDERS.find((candidate) => candidate.name === provider);
    if (known === undefined) return undefined;
    if (known.needsBaseUrl && config.llm.baseUrls[provider] === undefined)
      return `the built-in agent has no server URL for it (set ${known.baseUrlVariable} or LLM_BASE_URL)`;
    if (known.defaultModel === undefined && model === undefined) return 'it has no default model: name one in llm_model';
    return undefined;
  };

/** The AI layer, agent jobs and their runner (GitHub Actions when a code host is configured, else local). */
export const bindJobs = (c: Container, config: AppConfig): void => {
  c.bind(TOKENS.AiClient).toResolvedValue(
    (secrets: SecretStore) =>
      new VercelAiClient({
        provider: config.llm.provider,
        model: config.llm.model,
        providers: Object.fromEntries(AI_PROVIDER_NAMES.map((p) => [p, { apiKey: secrets.providerSecret(p), baseUrl: config.llm.baseUrls[p] }])),
        timeoutMs: config.llm.timeoutMs,
        maxRetries: config.llm.maxRetries,
      }),
    [TOKENS.SecretStore],
  );
  c.bind(TOKENS.JobRepository).toResolvedValue(
    // A chat job's notice is stored as a task the moment the job finishes (NotifyChatOfJob sends
    // it), and the job marked; one finished but not marked is queued by RequeueLostJobNotices.
    (db: Database, queue: TaskQueue, clock: Clock, logger: Logger) => {
      const stored = new MikroOrmJobRepository(db);
      return new NotifyingJobRepository(stored, (job) => queueChatJobNotice(queue, stored, clock, job).then(() => undefined), logger);
    },
    [TOKENS.Database, TOKENS.TaskQueue, TOKENS.Clock, TOKENS.Logger],
  );
  c.bind(TOKENS.RequeueStrandedJobs).toResolvedValue(
    (jobs: JobRepository, queue: TaskQueue, clock: Clock, logger: Logger) => new RequeueStrandedJobs(jobs, queue, clock, logger),
    [TOKENS.JobRepository, TOKENS.TaskQueue, TOKENS.Clock, TOKENS.Logger],
  );
  c.bind(TOKENS.RequeueLostJobNotices).toResolvedValue(
    (jobs: JobRepository, queue: TaskQueue, clock: Clock, logger: Logger) => new RequeueLostJobNotices(jobs, queue, clock, logger),
    [TOKENS.JobRepository, TOKENS.TaskQueue, TOKENS.Clock, TOKENS.Logger],
  );
  c.bind(TOKENS.NotifyChatOfJob).toResolvedValue(
    (channels: MessagingChannels, clock: Clock, logger: Logger) => new NotifyChatOfJob(channels, clock, logger),
    [TOKENS.MessagingChannels, TOKENS.Clock, TOKENS.Logger],
  );
  c.bind(TOKENS.JobRunner).toResolvedValue(
    (shell: ShellExecutor, secrets: SecretStore, ai: AiClient, clock: Clock, logger: Logger) => {
      if (config.codehost)
        return new GithubActionsJobRunner(new GithubClient(config.codehost), config.codehost.workflow, {
          clock,
          runStartMs: config.codehost.runStartSeconds * 1000,
        });
      // JOB_SANDBOX=bwrap confines the agents' commands only (the runner's own git commands and
      // trigger and schedule commands run as before); start-up checked that bwrap works.
      const agentShell =
        config.jobs.sandbox === 'bwrap'
          ? new BwrapSandboxedShell(shell, {
              bwrap: findBwrap(process.env.PATH) ?? 'bwrap',
              dataDir: config.dataDir,
              serviceHome: process.env.HOME,
              serviceCwd: process.cwd(),
              runtimeDir: process.env.XDG_RUNTIME_DIR,
              triggersDir: config.triggersDir,
              databaseSocketDirs: postgresSocketDirs(config.databaseUrl, process.env.PGHOST),
              hiddenFiles: [config.triggersFile, config.cronsFile, join(process.cwd(), '.env')],
              repoDir: config.jobs.repoDir,
              network: config.jobs.sandboxNetwork,
            })
          : shell;
      const commandsOffline = config.jobs.agentCommand === undefined && config.jobs.sandbox === 'bwrap' && config.jobs.sandboxNetwork === 'none';
      // AGENT_* secrets (a deploy token, a registry password, a search key) are mostly for commands
      // that call a service: said once at start-up, not found out by a failing job.
      const secretNames = secrets.agentVariables().map((variable) => variable.name);
      if (commandsOffline && secretNames.length > 0)
        logger.warn(
          { secrets: secretNames },
          "the built-in agent's commands have no network (JOB_SANDBOX_NETWORK=none, its default): set JOB_SANDBOX_NETWORK=host if they call services with these AGENT_* secrets",
        );
      const agent =
        config.jobs.agentCommand !== undefined
          ? new CommandAgent(config.jobs.agentCommand, config.jobs.timeoutMs, agentShell, secrets)
          : new LoopAgent(ai, agentShell, secrets, config.jobs.maxSteps, config.jobs.timeoutMs, { commandsOffline });
      return new LocalJobRunner({ repoDir: config.jobs.repoDir, worktreesDir: join(config.dataDir, 'worktrees') }, agent, shell);
    },
    [TOKENS.ShellExecutor, TOKENS.SecretStore, TOKENS.AiClient, TOKENS.Clock, TOKENS.Logger],
  );
  c.bind(TOKENS.CreateJob).toResolvedValue(
    (jobs, queue, secrets, ids, clock, logger) =>
      new CreateJob(jobs, queue, secrets, ids, clock, logger, {
        llmProviders: AI_PROVIDER_NAMES,
        defaultProvider: config.llm.provider,
        defaultModel: config.llm.model,
        unavailableReason: jobsUnavailableReason(config),
        // The built-in agent calls the provider itself: one it cannot call is refused at creation.
        ...(config.codehost === undefined && config.jobs.agentCommand === undefined && { providerProblem: builtInAgentProblem(config) }),
        ...(config.jobs.queueLimit !== undefined && { queueLimit: { jobs: config.jobs.queueLimit, setting: 'JOB_QUEUE_LIMIT' } }),
        ...(config.codehost === undefined &&
          config.jobs.agentCommand !== undefined && {
            promptLimit: {
              bytes: COMMAND_AGENT_MAX_PROMPT_BYTES,
              why: 'JOB_AGENT_COMMAND gets it in the JOB_PROMPT environment variable, which the system limits',
            },
          }),
        ...(config.codehost !== undefined && {
          promptLimit: {
            bytes: GITHUB_ACTIONS_MAX_PROMPT_BYTES,
            why: "the workflow's agent gets job.md in the JOB_PROMPT environment variable (docs/templates/agent-job.yml), which the system limits",
          },
        }),
      }),
    [TOKENS.JobRepository, TOKENS.TaskQueue, TOKENS.SecretStore, TOKENS.IdGenerator, TOKENS.Clock, TOKENS.Logger],
  );
  c.bind(TOKENS.JobLauncher).toService(TOKENS.CreateJob);
  c.bind(TOKENS.IdempotencyKeyStore).toResolvedValue((db: Database) => new MikroOrmIdempotencyKeyStore(db), [TOKENS.Database]);
  c.bind(TOKENS.CreateJobOnce).toResolvedValue(
    (...deps: ConstructorParameters<typeof CreateJobOnce>) => new CreateJobOnce(...deps),
    [TOKENS.CreateJob, TOKENS.IdempotencyKeyStore, TOKENS.JobRepository, TOKENS.ApiKeyCrypto, TOKENS.IdGenerator, TOKENS.Clock],
  );
  c.bind(TOKENS.GetJobStatus).toResolvedValue((jobs) => new GetJobStatus(jobs), [TOKENS.JobRepository]);
  c.bind(TOKENS.RunJob).toResolvedValue(
    (jobs: JobRepository, runner: JobRunner, clock: Clock, logger: Logger) => new RunJob(jobs, runner, clock, logger, new NodeTimer()),
    [TOKENS.JobRepository, TOKENS.JobRunner, TOKENS.Clock, TOKENS.Logger],
  );
  c.bind(TOKENS.CancelJob).toResolvedValue(
    (...deps: ConstructorParameters<typeof CancelJob>) => new CancelJob(...deps),
    [TOKENS.JobRepository, TOKENS.RunJob, TOKENS.Clock, TOKENS.JobRunner, TOKENS.Logger],
  );
  c.bind(TOKENS.PollJobs).toResolvedValue(
    (jobs, runner, clock, logger, queue, database: Database, ids) => {
      const autoMerge = config.codehost?.autoMerge ? new RequestAutoMerge(queue) : undefined;
      // One replica polls, renewing its lease at every poll; another takes over a few polls
      // after the holder died (or at once when it stopped and gave the lease up).
      const lease = { lease: new MikroOrmPollerLease(database), holder: ids.next(), ttlMs: Math.max(3 * (config.codehost?.pollSeconds ?? 60), 60) * 1000 };
      // A poll asks about as many jobs as keep an hour's polls within the code host's budget (POLL_CALLS_PER_HOUR).
      return new PollJobs(jobs, runner, clock, logger, autoMerge && ((job) => autoMerge.execute(job)), lease, {
        intervalMs: (config.codehost?.pollSeconds ?? 60) * 1000,
      });
    },
    [TOKENS.JobRepository, TOKENS.JobRunner, TOKENS.Clock, TOKENS.Logger, TOKENS.TaskQueue, TOKENS.Database, TOKENS.IdGenerator],
  );
  // AUTO_MERGE requires the code host (checked by the configuration); the worker is started only then.
  const codehost = config.codehost;
  if (codehost?.autoMerge) {
    const { allowedPaths } = codehost.autoMerge;
    c.bind(TOKENS.AutoMergeJob).toResolvedValue(
      (jobs, clock, logger: Logger) =>
        new AutoMergeJob(
          jobs,
          new GithubPullRequests(new GithubClient(codehost), codehost.repo),
          { allowedPaths, globs: compileGlobs(allowedPaths) },
          clock,
          logger.child({ component: 'auto-merge' }),
        ),
      [TOKENS.JobRepository, TOKENS.Clock, TOKENS.Logger],
    );
  }
};
