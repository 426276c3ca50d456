import { resolve } from 'node:path';
import { z } from 'zod';
import { integer, optionalPath } from './fields.js';

const DEFAULT_SYSTEM_PROMPT_FILE = 'config/CHAT_SYSTEM_PROMPT.md';

/** The chat agent every channel shares (each channel's own variables are in its binding, container/channels/). */
export const chatSchema = (cwd: string) =>
  z
    .object({
      CHAT_HISTORY_TURNS: integer(20, 0, 500),
      CHAT_MAX_STEPS: integer(5, 1, 50),
      CHAT_SYSTEM_PROMPT_FILE: optionalPath(),
      CHAT_ALBUM_SETTLE_MS: integer(1500, 0, 20_000),
    })
    .transform((env) => ({
      chat: {
        historyTurns: env.CHAT_HISTORY_TURNS,
        maxSteps: env.CHAT_MAX_STEPS,
        /** An album (messages sent together) is answered once none of its messages arrived for this long. */
        albumSettleMs: env.CHAT_ALBUM_SETTLE_MS,
        systemPromptFile: resolve(cwd, env.CHAT_SYSTEM_PROMPT_FILE ?? DEFAULT_SYSTEM_PROMPT_FILE),
        /** Set on purpose: start-up stops when the file does not exist (the default file may be absent). */
        systemPromptFileGiven: env.CHAT_SYSTEM_PROMPT_FILE !== undefined,
      },
    }));
