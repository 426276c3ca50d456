import type { z } from 'zod';
import { codehostSchema, jobsSchema, llmSchema } from './config/agents.js';
import { channelsSchema } from './config/channels.js';
import { chatSchema } from './config/chat.js';
import { retentionSchema } from './config/retention.js';
import { codehostWebhookSchema, serverSchema } from './config/server.js';
import { transcriptionSchema } from './config/transcription.js';
import { queueSchema, triggersSchema } from './config/triggers.js';

export { parseSize } from './config/fields.js';
export type { LogLevel } from './config/server.js';

export type Env = Readonly<Record<string, string | undefined>>;

/** Start-up configuration problems, one line per variable. */
export class ConfigError extends Error {
  constructor(
    readonly problems: readonly string[],
    readonly heading = 'Invalid configuration',
  ) {
    super(`${heading}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** One schema per capability (`config/*.ts`); their results together are the configuration. */
const capabilities = (cwd: string, dataDir: string) =>
  [
    serverSchema(cwd),
    triggersSchema(cwd),
    codehostWebhookSchema,
    queueSchema,
    chatSchema(cwd),
    channelsSchema,
    llmSchema,
    transcriptionSchema,
    codehostSchema,
    jobsSchema(cwd, dataDir),
    retentionSchema,
  ] as const;

type Capabilities = ReturnType<typeof capabilities>;
type Merged<T extends readonly z.ZodType[]> = T extends readonly [infer Head extends z.ZodType, ...infer Tail extends readonly z.ZodType[]]
  ? z.output<Head> & Merged<Tail>
  : unknown;

/** Everything the service reads from its environment, validated. See docs/configuration.md. */
export type AppConfig = Readonly<Merged<Capabilities>>;

/**
 * Reads and validates the configuration: every capability's schema is checked, and one
 * ConfigError lists every problem, each naming its variable (`PORT: "x" is not …`).
 */
export const loadConfig = (env: Env, cwd: string = process.cwd()): AppConfig => {
  const problems: string[] = [];
  const server = serverSchema(cwd).safeParse(env);
  const dataDir = server.success ? server.data.dataDir : cwd;
  let config: Record<string, unknown> = {};
  for (const schema of capabilities(cwd, dataDir)) {
    const result = (schema as z.ZodType).safeParse(env);
    if (result.success) config = { ...config, ...(result.data as Record<string, unknown>) };
    else for (const issue of result.error.issues) problems.push(`${issue.path.join('.')}: ${issue.message}`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config as AppConfig;
};

/**
 * The name of every variable the configuration reads, found by reading it (so that no second
 * list can drift from the schemas): once with no variable set, once with `env`, as some are read
 * only when another is set. Used to tell a misspelled name in `.env` (environment.ts).
 */
export const settingNames = (env: Env, cwd: string = process.cwd()): ReadonlySet<string> => {
  const read = new Set<string>();
  // No own keys: a schema that copies the whole environment ({ ...env }) reads no name by that.
  const watching = (values: Env): Env =>
    new Proxy({} as Env, {
      get: (_, name) => {
        if (typeof name !== 'string') return undefined;
        read.add(name);
        return values[name];
      },
      has: (_, name) => {
        if (typeof name === 'string') read.add(name);
        return typeof name === 'string' && values[name] !== undefined;
      },
    });
  for (const values of [{}, env]) {
    try {
      loadConfig(watching(values), cwd);
    } catch {
      // the problems are the configuration's own to report
    }
  }
  return read;
};
