import { existsSync } from 'node:fs';
import { loadScheduleFile } from '../adapters/triggerfile/json-schedule-file.js';
import { loadTriggerFile } from '../adapters/triggerfile/json-trigger-file.js';
import { checkTriggerSecrets } from '../application/triggers/check-trigger-secrets.js';
import { scheduleCatalog } from './schedule-catalog.js';
import { triggerCatalog } from './trigger-catalog.js';
/**
 * Reads and validates both files; with `secrets`, also that each enabled agent action's
 * provider has its secret, and that TRIGGERS_DIR exists when a command action needs it.
 */
export const readConfigFiles = async (config, secrets) => {
    const [triggers, schedules] = await Promise.all([
        loadTriggerFile(config.triggersFile, triggerCatalog()),
        loadScheduleFile(config.cronsFile, scheduleCatalog()),
    ]);
    const problems = [...triggers.problems, ...schedules.problems];
    if (problems.length === 0 && secrets) {
        problems.push(...checkTriggerSecrets(triggers.triggers, secrets, config.triggersFile));
        problems.push(...checkTriggerSecrets(schedules.schedules, secrets, config.cronsFile, 'schedule'));
    }
    const commands = [...triggers.triggers, ...schedules.schedules].some((entry) => entry.actions.some((action) => action.type === 'command'));
    if (problems.length === 0 && commands && !existsSync(config.triggersDir)) {
        problems.push(`TRIGGERS_DIR: ${config.triggersDir} does not exist (command actions run there)`);
    }
    return { triggers: triggers.triggers, schedules: schedules.schedules, problems, triggersMissing: triggers.missing, schedulesMissing: schedules.missing };
};
//# sourceMappingURL=config-files.js.map