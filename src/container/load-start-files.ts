import { existsSync } from 'node:fs';
import type { Schedule } from '../domain/schedules/schedule.js';
import type { Trigger } from '../domain/triggers/trigger.js';
import type { Logger } from '../ports/logger.js';
import { ConfigError, type AppConfig } from './config.js';
import { loadSchedules } from './load-schedules.js';
import { loadTriggers } from './load-triggers.js';

/**
 * The files start-up reads before anything is opened: the trigger and schedule files (validated
 * as a whole), and the chat's system prompt when CHAT_SYSTEM_PROMPT_FILE names one — a prompt
 * file set on purpose and missing would otherwise leave the chat on the default prompt unsaid.
 */
export const loadStartFiles = async (config: AppConfig, logger: Logger): Promise<{ triggers: readonly Trigger[]; schedules: readonly Schedule[] }> => {
  const triggers = await loadTriggers(config, logger);
  const schedules = await loadSchedules(config, logger);
  if (config.chat.systemPromptFileGiven && !existsSync(config.chat.systemPromptFile)) {
    throw new ConfigError([`CHAT_SYSTEM_PROMPT_FILE: ${config.chat.systemPromptFile} does not exist`]);
  }
  return { triggers, schedules };
};
