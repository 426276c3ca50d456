import { resolve } from 'node:path';
import { z } from 'zod';
import { shownInput } from '../../domain/errors/shown-input.js';
import { TOKEN_VARIABLE_PREFIX } from '../../domain/templates/render-command.js';
import { flag, integer, list, path } from './fields.js';

const commandEnvName = (name: string): string | undefined => {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return `"${shownInput(name)}" is not a variable name (letters, digits and _, not starting with a digit)`;
  if (name.startsWith(TOKEN_VARIABLE_PREFIX)) return `"${shownInput(name)}" starts with ${TOKEN_VARIABLE_PREFIX}, which is reserved for template values`;
  return undefined;
};

/** The longest a webhook action's attempts and waits may last (the task queue takes a run back after 24 hours). */
const WEBHOOK_ACTION_MAX_MS = 12 * 3_600_000;

/** Triggers and their actions: the trigger file, command actions and outbound webhooks. */
export const triggersSchema = (cwd: string) =>
  z
    .object({
      TRIGGERS_FILE: path('config/TRIGGERS.json'),
      TRIGGERS_DIR: path('triggers'),
      CRONS_FILE: path('config/CRONS.json'),
      CONFIG_WATCH: flag(true),
      COMMAND_TIMEOUT_SECONDS: integer(60, 1, 86_400),
      COMMAND_ENV: list(commandEnvName),
      WEBHOOK_TIMEOUT_SECONDS: integer(10, 1, 600),
      WEBHOOK_ATTEMPTS: integer(4, 1, 20),
      WEBHOOK_BACKOFF_MS: integer(1000, 0, 600_000),
      APPROVAL_TIMEOUT_SECONDS: integer(1800, 1, 7 * 86_400),
    })
    .superRefine((env, ctx) => {
      // A webhook action's attempts and the waits between them (doubling) within the time the task
      // queue lets a trigger run last: past it the run is taken back, and a stop during a wait
      // records the action interrupted though every attempt failed.
      const worstMs = env.WEBHOOK_ATTEMPTS * env.WEBHOOK_TIMEOUT_SECONDS * 1000 + env.WEBHOOK_BACKOFF_MS * (2 ** (env.WEBHOOK_ATTEMPTS - 1) - 1);
      if (worstMs > WEBHOOK_ACTION_MAX_MS)
        ctx.addIssue({
          code: 'custom',
          path: ['WEBHOOK_BACKOFF_MS'],
          message: `"${env.WEBHOOK_BACKOFF_MS}" with WEBHOOK_ATTEMPTS=${env.WEBHOOK_ATTEMPTS} and WEBHOOK_TIMEOUT_SECONDS=${env.WEBHOOK_TIMEOUT_SECONDS} lets one webhook action last up to ${Math.round(worstMs / 3_600_000)} hours (the waits double); at most 12 hours: lower one of them`,
        });
    })
    .transform((env) => ({
      triggersFile: resolve(cwd, env.TRIGGERS_FILE),
      triggersDir: resolve(cwd, env.TRIGGERS_DIR),
      cronsFile: resolve(cwd, env.CRONS_FILE),
      /** Reload TRIGGERS_FILE and CRONS_FILE when either changes (their directories are watched). */
      configWatch: env.CONFIG_WATCH,
      commandTimeoutMs: env.COMMAND_TIMEOUT_SECONDS * 1000,
      /** Names of the service's variables that command actions also get; values are read at start-up. */
      commandEnv: env.COMMAND_ENV as readonly string[],
      webhook: { timeoutMs: env.WEBHOOK_TIMEOUT_SECONDS * 1000, attempts: env.WEBHOOK_ATTEMPTS, backoffMs: env.WEBHOOK_BACKOFF_MS },
      /** How long an action with `approval: true` waits for a decision before it expires. */
      approvalTimeoutMs: env.APPROVAL_TIMEOUT_SECONDS * 1000,
    }));

/** The durable task queue. */
export const queueSchema = z
  .object({
    QUEUE_CONCURRENCY: integer(4, 1, 100),
    QUEUE_HEARTBEAT_SECONDS: integer(10, 10, 3600),
    QUEUE_SUPERVISE_SECONDS: integer(15, 1, 3600),
    QUEUE_YIELD_BUSY_PERCENT: integer(70, 1, 100),
  })
  .transform((env) => ({
    queue: { concurrency: env.QUEUE_CONCURRENCY, heartbeatSeconds: env.QUEUE_HEARTBEAT_SECONDS, superviseIntervalSeconds: env.QUEUE_SUPERVISE_SECONDS },
    /** Background tasks wait to start while the service is busier than this share (1: never wait). */
    yieldBusyAbove: env.QUEUE_YIELD_BUSY_PERCENT / 100,
  }));
