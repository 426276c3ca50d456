import { existsSync } from 'node:fs';
import { loadScheduleFile } from '../adapters/triggerfile/json-schedule-file.js';
import { loadTriggerFile } from '../adapters/triggerfile/json-trigger-file.js';
import { checkTriggerSecrets } from '../application/triggers/check-trigger-secrets.js';
import type { Schedule } from '../domain/schedules/schedule.js';
import type { Trigger } from '../domain/triggers/trigger.js';
import type { SecretStore } from '../ports/secret-store.js';
import type { AppConfig } from './config.js';
import { scheduleCatalog } from './schedule-catalog.js';
import { triggerCatalog } from './trigger-catalog.js';

/** The trigger file and the schedule file, read and checked together (start-up, reload, the CLI). */
export interface ConfigFiles {
  readonly triggers: readonly Trigger[];
  readonly schedules: readonly Schedule[];
  /** Every problem of both files, one line each naming file, entry and field; use nothing when there is one. */
  readonly problems: readonly string[];
  readonly triggersMissing: boolean;
  readonly schedulesMissing: boolean;
}

type FileSettings = Pick<AppConfig, 'triggersFile' | 'cronsFile' | 'triggersDir'>;

/**
 * Reads and validates both files; with `secrets`, also that each enabled agent action's
 * provider has its secret, and that TRIGGERS_DIR exists when a command action needs it.
 */
export const readConfigFiles = async (config: FileSettings, secrets?: SecretStore): Promise<ConfigFiles> => {
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
