import { join, resolve } from 'node:path';
import { TOKEN_VARIABLE_PREFIX } from '../domain/templates/renderCommand.js';
import { LLM_PROVIDERS, type LlmProvider } from '../domain/triggers/Trigger.js';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Everything the service reads from its environment, validated. See docs/configuration.md. */
export interface AppConfig {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  /** Unset means the embedded PGlite database under `dataDir`. */
  readonly databaseUrl: string | undefined;
  /** DATABASE_CREATE: create the database DATABASE_URL names when it does not exist (otherwise start-up stops). */
  readonly databaseCreate: boolean;
  readonly bodyLimit: number;
  readonly logLevel: LogLevel;
  readonly triggersFile: string;
  readonly triggersDir: string;
  readonly shutdownTimeoutMs: number;
  /** Behind a reverse proxy: trust its X-Forwarded-Proto/For (HTTPS detection for Secure cookies, client address for login limits). */
  readonly trustProxy: boolean;
  /** Bearer token required by GET /metrics; unset leaves it open. Never logged. */
  readonly metricsToken: string | undefined;
  /** Shared secret of code-host webhooks; unset means every delivery is refused. Never logged. */
  readonly codehostWebhookSecret: string | undefined;
  readonly commandTimeoutMs: number;
  /** Names of the service's variables that command actions also get (COMMAND_ENV); values are read at start-up. */
  readonly commandEnv: readonly string[];
  readonly webhook: { readonly timeoutMs: number; readonly attempts: number; readonly backoffMs: number };
  readonly queue: { readonly concurrency: number; readonly heartbeatSeconds: number; readonly superviseIntervalSeconds: number };
  readonly messaging: {
    /** Default bot token (a registration overrides it). Never logged. */
    readonly botToken: string | undefined;
    /** Secret the platform sends with each update. Never logged. */
    readonly webhookSecret: string | undefined;
    readonly apiUrl: string;
    readonly allowedChatIds: ReadonlySet<string>;
  };
  readonly chat: { readonly historyTurns: number; readonly maxSteps: number; readonly systemPromptFile: string };
  /** Set when jobs run on GitHub Actions (CODEHOST_TOKEN and CODEHOST_REPO). */
  readonly codehost: { readonly token: string; readonly repo: string; readonly apiUrl: string; readonly pollSeconds: number } | undefined;
  readonly llm: {
    readonly provider: LlmProvider | undefined;
    readonly model: string | undefined;
    /** Base URL per provider (`LLM_BASE_URL` for custom and the default provider, `<PROVIDER>_BASE_URL`). */
    readonly baseUrls: Readonly<Record<LlmProvider, string | undefined>>;
    readonly timeoutMs: number;
    readonly maxRetries: number;
  };
  readonly jobs: {
    /** Repository local jobs work on; DATA_DIR/jobs-repo (created) when JOBS_REPO is unset. */
    readonly repoDir: string;
    readonly agentCommand: string | undefined;
    readonly timeoutMs: number;
    readonly concurrency: number;
    /** Model calls of the built-in agent per job. */
    readonly maxSteps: number;
  };
}

export type Env = Readonly<Record<string, string | undefined>>;

/** Start-up configuration problems, one line per variable. */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[], heading = 'Invalid configuration') {
    super(`${heading}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const SIZE = /^(\d+)\s*(b|kb|kib|mb|mib|gb|gib)?$/i;
const UNITS: Record<string, number> = { b: 1, kb: 1024, kib: 1024, mb: 1024 ** 2, mib: 1024 ** 2, gb: 1024 ** 3, gib: 1024 ** 3 };

/** `1048576`, `512kb`, `1mb` (binary units) → bytes. */
export const parseSize = (raw: string): number | undefined => {
  const match = SIZE.exec(raw.trim());
  if (!match) return undefined;
  return Number(match[1]) * UNITS[(match[2] ?? 'b').toLowerCase()];
};

/** Reads and validates the configuration; throws one ConfigError naming every bad variable. */
export const loadConfig = (env: Env, cwd: string = process.cwd()): AppConfig => {
  const problems: string[] = [];
  const text = (name: string, fallback: string): string => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? fallback : value.trim();
  };
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = text(name, String(fallback));
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || value < min || value > max) {
      problems.push(`${name}: "${raw}" is not a whole number between ${min} and ${max}`);
      return fallback;
    }
    return value;
  };

  const port = integer('PORT', 3000, 0, 65535);
  const shutdownTimeoutMs = integer('SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000);
  const rawTrustProxy = text('TRUST_PROXY', 'false').toLowerCase();
  if (!['true', 'false', '1', '0'].includes(rawTrustProxy)) problems.push(`TRUST_PROXY: "${rawTrustProxy}" is not true or false`);
  const trustProxy = rawTrustProxy === 'true' || rawTrustProxy === '1';
  const rawDatabaseCreate = text('DATABASE_CREATE', 'false').toLowerCase();
  if (!['true', 'false', '1', '0'].includes(rawDatabaseCreate)) problems.push(`DATABASE_CREATE: "${rawDatabaseCreate}" is not true or false`);
  const commandTimeoutMs = integer('COMMAND_TIMEOUT_SECONDS', 60, 1, 86_400) * 1000;
  const commandEnv = [...new Set((env.COMMAND_ENV ?? '').split(',').map((name) => name.trim()).filter((name) => name !== ''))];
  for (const name of commandEnv) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) problems.push(`COMMAND_ENV: "${name}" is not a variable name (letters, digits and _, not starting with a digit)`);
    else if (name.startsWith(TOKEN_VARIABLE_PREFIX)) problems.push(`COMMAND_ENV: "${name}" starts with ${TOKEN_VARIABLE_PREFIX}, which is reserved for template values`);
  }
  const webhook = {
    timeoutMs: integer('WEBHOOK_TIMEOUT_SECONDS', 10, 1, 600) * 1000,
    attempts: integer('WEBHOOK_ATTEMPTS', 4, 1, 20),
    backoffMs: integer('WEBHOOK_BACKOFF_MS', 1000, 0, 600_000),
  };
  const queue = {
    concurrency: integer('QUEUE_CONCURRENCY', 4, 1, 100),
    heartbeatSeconds: integer('QUEUE_HEARTBEAT_SECONDS', 10, 10, 3600),
    superviseIntervalSeconds: integer('QUEUE_SUPERVISE_SECONDS', 15, 1, 3600),
  };

  const rawProvider = env.LLM_PROVIDER?.trim() || undefined;
  if (rawProvider !== undefined && !LLM_PROVIDERS.includes(rawProvider as LlmProvider)) {
    problems.push(`LLM_PROVIDER: "${rawProvider}" is not one of ${LLM_PROVIDERS.join(', ')}`);
  }
  const jobTimeoutMs = integer('JOB_TIMEOUT_SECONDS', 3600, 1, 7 * 86_400) * 1000;
  const jobConcurrency = integer('JOB_CONCURRENCY', 1, 1, 64);
  const jobMaxSteps = integer('JOB_AGENT_MAX_STEPS', 30, 1, 500);
  const llmTimeoutMs = integer('LLM_TIMEOUT_SECONDS', 120, 1, 3600) * 1000;
  const llmMaxRetries = integer('LLM_MAX_RETRIES', 2, 0, 10);
  const url = (name: string): string | undefined => {
    const value = env[name]?.trim() || undefined;
    if (value !== undefined && !/^https?:\/\/[^\s]+$/.test(value)) problems.push(`${name}: "${value}" is not an http(s) URL`);
    return value;
  };
  const llmBaseUrl = url('LLM_BASE_URL');
  const providerUrl = (provider: LlmProvider, name: string): string | undefined =>
    url(name) ?? (provider === 'custom' || provider === rawProvider ? llmBaseUrl : undefined);
  const baseUrls: Record<LlmProvider, string | undefined> = {
    anthropic: providerUrl('anthropic', 'ANTHROPIC_BASE_URL'),
    openai: providerUrl('openai', 'OPENAI_BASE_URL'),
    google: providerUrl('google', 'GOOGLE_BASE_URL'),
    custom: providerUrl('custom', 'CUSTOM_BASE_URL'),
  };
  if (rawProvider === 'custom' && baseUrls.custom === undefined) problems.push('LLM_BASE_URL: required when LLM_PROVIDER is custom (the server\'s /v1 URL)');

  const codehostToken = env.CODEHOST_TOKEN?.trim() || undefined;
  const codehostRepo = env.CODEHOST_REPO?.trim() || undefined;
  const codehostApiUrl = text('CODEHOST_API_URL', 'https://api.github.com');
  const codehostPollSeconds = integer('CODEHOST_POLL_SECONDS', 60, 5, 86_400);
  if (codehostRepo !== undefined && !/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(codehostRepo)) {
    problems.push(`CODEHOST_REPO: "${codehostRepo}" is not owner/name`);
  }
  if ((codehostToken === undefined) !== (codehostRepo === undefined)) {
    problems.push(`${codehostToken === undefined ? 'CODEHOST_TOKEN' : 'CODEHOST_REPO'}: required when ${codehostToken === undefined ? 'CODEHOST_REPO' : 'CODEHOST_TOKEN'} is set (jobs on GitHub Actions need both)`);
  }
  if (!/^https?:\/\//.test(codehostApiUrl)) problems.push(`CODEHOST_API_URL: "${codehostApiUrl}" is not an http(s) URL`);

  const botToken = env.MESSAGING_BOT_TOKEN?.trim() || undefined;
  const webhookSecret = env.MESSAGING_WEBHOOK_SECRET?.trim() || undefined;
  if (webhookSecret !== undefined && !/^[A-Za-z0-9_-]{1,256}$/.test(webhookSecret)) {
    problems.push('MESSAGING_WEBHOOK_SECRET: must be 1 to 256 characters of A-Z, a-z, 0-9, _ and - (the platform\'s rule)');
  }
  if (botToken !== undefined && webhookSecret === undefined) {
    problems.push('MESSAGING_WEBHOOK_SECRET: required when MESSAGING_BOT_TOKEN is set (the webhook must be able to tell the platform from anyone else)');
  }
  const messagingApiUrl = url('MESSAGING_API_URL') ?? 'https://api.telegram.org';
  const rawChats = env.MESSAGING_ALLOWED_CHAT_IDS?.trim() ?? '';
  const allowedChatIds = new Set(rawChats === '' ? [] : rawChats.split(',').map((id) => id.trim()).filter((id) => id !== ''));
  for (const id of allowedChatIds) if (!/^-?\d+$/.test(id)) problems.push(`MESSAGING_ALLOWED_CHAT_IDS: "${id}" is not a chat id (a whole number, negative for groups)`);
  const chatHistoryTurns = integer('CHAT_HISTORY_TURNS', 20, 0, 500);
  const chatMaxSteps = integer('CHAT_MAX_STEPS', 5, 1, 50);

  const rawLimit = text('BODY_LIMIT', '1mb');
  let bodyLimit = parseSize(rawLimit);
  if (bodyLimit === undefined || bodyLimit < 1) {
    problems.push(`BODY_LIMIT: "${rawLimit}" is not a size such as 1048576, 512kb or 1mb`);
    bodyLimit = 1024 ** 2;
  }

  const rawLevel = text('LOG_LEVEL', 'info').toLowerCase();
  const logLevel = LOG_LEVELS.find((level) => level === rawLevel);
  if (!logLevel) problems.push(`LOG_LEVEL: "${rawLevel}" is not one of ${LOG_LEVELS.join(', ')}`);

  const databaseUrl = env.DATABASE_URL?.trim() || undefined;
  if (databaseUrl !== undefined) {
    let valid = false;
    try {
      valid = ['postgres:', 'postgresql:'].includes(new URL(databaseUrl).protocol);
    } catch {
      valid = false;
    }
    // Never echo the URL: it may carry a password.
    if (!valid) problems.push('DATABASE_URL: not a postgres:// or postgresql:// URL');
  }

  const dataDir = resolve(cwd, text('DATA_DIR', './data'));
  const config: AppConfig = {
    port,
    // Loopback unless told otherwise: the admin UI is plain HTTP (docs/deployment.md).
    host: text('HOST', '127.0.0.1'),
    dataDir,
    databaseUrl,
    databaseCreate: rawDatabaseCreate === 'true' || rawDatabaseCreate === '1',
    bodyLimit,
    logLevel: logLevel ?? 'info',
    triggersFile: resolve(cwd, text('TRIGGERS_FILE', 'config/TRIGGERS.json')),
    triggersDir: resolve(cwd, text('TRIGGERS_DIR', 'triggers')),
    shutdownTimeoutMs,
    codehostWebhookSecret: env.CODEHOST_WEBHOOK_SECRET || undefined,
    metricsToken: env.METRICS_TOKEN?.trim() || undefined,
    trustProxy: trustProxy,
    commandTimeoutMs,
    commandEnv,
    webhook,
    queue,
    messaging: { botToken, webhookSecret, apiUrl: messagingApiUrl.replace(/\/$/, ''), allowedChatIds },
    chat: { historyTurns: chatHistoryTurns, maxSteps: chatMaxSteps, systemPromptFile: resolve(cwd, text('CHAT_SYSTEM_PROMPT_FILE', 'config/CHAT_SYSTEM_PROMPT.md')) },
    codehost:
      codehostToken !== undefined && codehostRepo !== undefined
        ? { token: codehostToken, repo: codehostRepo, apiUrl: codehostApiUrl, pollSeconds: codehostPollSeconds }
        : undefined,
    llm: {
      provider: rawProvider as LlmProvider | undefined,
      model: env.LLM_MODEL?.trim() || undefined,
      baseUrls,
      timeoutMs: llmTimeoutMs,
      maxRetries: llmMaxRetries,
    },
    jobs: {
      repoDir: env.JOBS_REPO?.trim() ? resolve(cwd, env.JOBS_REPO.trim()) : join(dataDir, 'jobs-repo'),
      agentCommand: env.JOB_AGENT_COMMAND?.trim() || undefined,
      timeoutMs: jobTimeoutMs,
      concurrency: jobConcurrency,
      maxSteps: jobMaxSteps,
    },
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
};
