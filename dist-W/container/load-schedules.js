import { existsSync } from 'node:fs';
import { loadScheduleFile } from '../adapters/triggerfile/json-schedule-file.js';
import { ConfigError } from './config.js';
import { scheduleCatalog } from './schedule-catalog.js';
/** The schedule file (CRONS_FILE), validated as a whole: any problem stops start-up with every problem listed. */
export const loadSchedules = async (config, logger) => {
    const loaded = await loadScheduleFile(config.cronsFile, scheduleCatalog());
    if (loaded.problems.length > 0)
        throw new ConfigError(loaded.problems, 'Invalid schedule file');
    if (loaded.missing)
        logger.debug({ file: config.cronsFile }, 'no schedule file; no schedules');
    if (loaded.schedules.some((s) => s.actions.some((a) => a.type === 'command')) && !existsSync(config.triggersDir)) {
        throw new ConfigError([`TRIGGERS_DIR: ${config.triggersDir} does not exist (command actions run there)`]);
    }
    return loaded.schedules;
};
//# sourceMappingURL=load-schedules.js.map