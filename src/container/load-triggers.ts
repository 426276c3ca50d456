import { loadTriggerFile } from '../adapters/triggerfile/json-trigger-file.js';
import { shownPath } from '../adapters/triggerfile/shown-path.js';
import { chatTriggerWarnings } from '../domain/triggers/chat-trigger-warnings.js';
import { codehostTriggerWarnings } from '../domain/triggers/codehost-trigger-warnings.js';
import type { Trigger } from '../domain/triggers/trigger.js';
import { withheldHeaderWarnings } from '../domain/triggers/withheld-header-warnings.js';
import type { Logger } from '../ports/logger.js';
import { channelCredentialHeaders, chatIdFieldsByWatchPath } from './channels/index.js';
import { ConfigError, type AppConfig } from './config.js';
import { triggersDirProblems } from './config-files.js';
import { triggerCatalog } from './trigger-catalog.js';

/** The trigger file, validated as a whole: any problem stops start-up with every problem listed. */
export const loadTriggers = async (config: AppConfig, logger: Logger): Promise<readonly Trigger[]> => {
  const loaded = await loadTriggerFile(config.triggersFile, triggerCatalog());
  if (loaded.problems.length > 0) throw new ConfigError(loaded.problems, 'Invalid trigger file');
  if (loaded.missing) logger.info({ file: config.triggersFile }, 'no trigger file; no triggers');
  const directory = triggersDirProblems(loaded.triggers, config.triggersDir);
  if (directory.length > 0) throw new ConfigError(directory);
  for (const warning of chatTriggerWarnings(loaded.triggers, chatIdFieldsByWatchPath())) logger.warn({ file: config.triggersFile }, warning);
  for (const warning of codehostTriggerWarnings(loaded.triggers)) logger.warn({ file: config.triggersFile }, warning);
  for (const { trigger, field, header, message } of withheldHeaderWarnings(loaded.triggers, shownPath(config.triggersFile), channelCredentialHeaders()))
    logger.warn({ file: config.triggersFile, trigger, field, header }, message);
  return loaded.triggers;
};
