import { resolve } from 'node:path';
import { z } from 'zod';
import { integer, text } from './fields.js';
/** The chat agent every channel shares (each channel's own variables are in its binding, container/channels/). */
export const chatSchema = (cwd) => z
    .object({
    CHAT_HISTORY_TURNS: integer(20, 0, 500),
    CHAT_MAX_STEPS: integer(5, 1, 50),
    CHAT_SYSTEM_PROMPT_FILE: text('config/CHAT_SYSTEM_PROMPT.md'),
})
    .transform((env) => ({
    chat: { historyTurns: env.CHAT_HISTORY_TURNS, maxSteps: env.CHAT_MAX_STEPS, systemPromptFile: resolve(cwd, env.CHAT_SYSTEM_PROMPT_FILE) },
}));
//# sourceMappingURL=chat.js.map