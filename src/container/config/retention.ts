import { z } from 'zod';
import { integer } from './fields.js';

/**
 * Days a queued task may wait unrun before the queue drops it (pg-boss's `retentionSeconds`).
 * Inbound requests are kept longer, so a trigger run that is still waiting finds its request.
 */
export const WAITING_TASK_DAYS = 14;

const DAY_S = 86_400;
/** Retention for the longest-kept kind, ~100 years: anything longer is a typo. */
const MAX_DAYS = 36_500;

/** Lower bounds, besides 0 (keep for good), and why. */
const MINIMUM_DAYS: ReadonlyArray<readonly [name: 'RETENTION_DELIVERIES_DAYS' | 'RETENTION_FINISHED_TASKS_DAYS', min: number, why: string]> = [
  ['RETENTION_DELIVERIES_DAYS', 2, 'deliveries are remembered to refuse redeliveries, and Telegram redelivers for up to a day'],
  ['RETENTION_FINISHED_TASKS_DAYS', 2, "a finished chat task's key refuses a redelivered update"],
];

/** How long stored records are kept, and how often the retention sweep runs. See docs/configuration.md. */
export const retentionSchema = z
  .object({
    RETENTION_DELIVERIES_DAYS: integer(7, 0, MAX_DAYS),
    RETENTION_CHAT_TURNS_DAYS: integer(90, 0, MAX_DAYS),
    RETENTION_ACTION_RUNS_DAYS: integer(30, 0, MAX_DAYS),
    RETENTION_FINISHED_TASKS_DAYS: integer(7, 0, MAX_DAYS),
    RETENTION_SWEEP_MINUTES: integer(60, 1, 1440),
  })
  .superRefine((env, ctx) => {
    for (const [name, min, why] of MINIMUM_DAYS) {
      const value = env[name];
      if (value !== 0 && value < min)
        ctx.addIssue({ code: 'custom', path: [name], message: `"${value}" is less than ${min} days (${why}); 0 keeps them for good` });
    }
  })
  .transform((env) => ({
    retention: {
      /** Days accepted deliveries (code-host deliveries, chat update ids) are remembered; 0: for good. */
      deliveriesDays: env.RETENTION_DELIVERIES_DAYS,
      chatTurnsDays: env.RETENTION_CHAT_TURNS_DAYS,
      actionRunsDays: env.RETENTION_ACTION_RUNS_DAYS,
      /**
       * As long as action runs, and always longer than a task can wait in the queue (15 days at
       * least: ReceiveCodehostEvent redoes the work of a code-host delivery sent again only within
       * 14 days of its first, while the request it stored is sure to be kept).
       */
      inboundRequestsDays: env.RETENTION_ACTION_RUNS_DAYS === 0 ? 0 : Math.max(env.RETENTION_ACTION_RUNS_DAYS, WAITING_TASK_DAYS + 1),
      /** pg-boss deletes a completed or failed task this long after it finished (0: never). */
      finishedTaskSeconds: env.RETENTION_FINISHED_TASKS_DAYS * DAY_S,
      /** pg-boss drops a task still waiting this long after it was stored. */
      waitingTaskSeconds: WAITING_TASK_DAYS * DAY_S,
      /**
       * The chat's job keys (scope `chat`) outlive any attempt of the chat task that made them: a
       * task is dropped once it waited WAITING_TASK_DAYS after it was stored (its retries do not
       * lengthen that), and a day covers the attempt's own run and the queue's sweep (docs/chat.md).
       */
      chatJobKeysDays: WAITING_TASK_DAYS + 1,
      /**
       * How long a chat answer is surely remembered: its job keys, its reply record (a delivery)
       * and its saved exchange (a chat turn) — the shortest of the three (0 keeps one for good). A
       * chat task run again later than this is not answered (ReplyToChatMessage `lateRuns`): past
       * it, the attempt could create the answer's job again or send its reply a second time.
       */
      chatAnswerRememberedDays: Math.min(WAITING_TASK_DAYS + 1, ...[env.RETENTION_DELIVERIES_DAYS, env.RETENTION_CHAT_TURNS_DAYS].filter((days) => days > 0)),
      sweepIntervalMs: env.RETENTION_SWEEP_MINUTES * 60_000,
    },
  }));
