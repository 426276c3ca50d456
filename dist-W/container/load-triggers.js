import { existsSync } from 'node:fs';
import { loadTriggerFile } from '../adapters/triggerfile/json-trigger-file.js';
import { ConfigError } from './config.js';
import { triggerCatalog } from './trigger-catalog.js';
/** The trigger file, validated as a whole: any problem stops start-up with every problem listed. */
export const loadTriggers = async (config, logger) => {
    const loaded = await loadTriggerFile(config.triggersFile, triggerCatalog());
    if (loaded.problems.length > 0)
        throw new ConfigError(loaded.problems, 'Invalid trigger file');
    if (loaded.missing)
        logger.info({ file: config.triggersFile }, 'no trigger file; no triggers');
    if (loaded.triggers.some((t) => t.actions.some((a) => a.type === 'command')) && !existsSync(config.triggersDir)) {
        throw new ConfigError([`TRIGGERS_DIR: ${config.triggersDir} does not exist (command actions run there)`]);
    }
    return loaded.triggers;
};
//# sourceMappingURL=load-triggers.js.map