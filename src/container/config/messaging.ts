import { resolve } from 'node:path';
import { z } from 'zod';
import { integer, list, optionalText, text, url } from './fields.js';

/** The chat channel (Telegram Bot API) and the chat agent. */
export const messagingSchema = (cwd: string) =>
  z
    .object({
      MESSAGING_BOT_TOKEN: optionalText(),
      MESSAGING_WEBHOOK_SECRET: optionalText().superRefine((value, ctx) => {
        if (value !== undefined && !/^[A-Za-z0-9_-]{1,256}$/.test(value)) {
          ctx.addIssue({ code: 'custom', message: "must be 1 to 256 characters of A-Z, a-z, 0-9, _ and - (the platform's rule)" });
        }
      }),
      MESSAGING_API_URL: url('https://api.telegram.org'),
      MESSAGING_ALLOWED_CHAT_IDS: list((id) => (/^-?\d+$/.test(id) ? undefined : `"${id}" is not a chat id (a whole number, negative for groups)`)),
      CHAT_HISTORY_TURNS: integer(20, 0, 500),
      CHAT_MAX_STEPS: integer(5, 1, 50),
      CHAT_SYSTEM_PROMPT_FILE: text('config/CHAT_SYSTEM_PROMPT.md'),
    })
    .superRefine((env, ctx) => {
      if (env.MESSAGING_BOT_TOKEN !== undefined && env.MESSAGING_WEBHOOK_SECRET === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['MESSAGING_WEBHOOK_SECRET'],
          message: 'required when MESSAGING_BOT_TOKEN is set (the webhook must be able to tell the platform from anyone else)',
        });
      }
    })
    .transform((env) => ({
      messaging: {
        /** Default bot token (a registration overrides it). Never logged. */
        botToken: env.MESSAGING_BOT_TOKEN,
        /** Secret the platform sends with each update. Never logged. */
        webhookSecret: env.MESSAGING_WEBHOOK_SECRET,
        apiUrl: env.MESSAGING_API_URL,
        allowedChatIds: new Set(env.MESSAGING_ALLOWED_CHAT_IDS) as ReadonlySet<string>,
      },
      chat: { historyTurns: env.CHAT_HISTORY_TURNS, maxSteps: env.CHAT_MAX_STEPS, systemPromptFile: resolve(cwd, env.CHAT_SYSTEM_PROMPT_FILE) },
    }));
