import { loadScheduleFile } from '../adapters/triggerfile/json-schedule-file.js';
import type { Schedule } from '../domain/schedules/schedule.js';
import type { Logger } from '../ports/logger.js';
import { ConfigError, type AppConfig } from './config.js';
import { triggersDirProblems } from './config-files.js';
import { scheduleCatalog } from './schedule-catalog.js';
import { zonelessWarning } from './zoneless-schedules.js';

/** The schedule file (CRONS_FILE), validated as a whole: any problem stops start-up with every problem listed. */
export const loadSchedules = async (config: AppConfig, logger: Logger): Promise<readonly Schedule[]> => {
  const loaded = await loadScheduleFile(config.cronsFile, scheduleCatalog());
  if (loaded.problems.length > 0) throw new ConfigError(loaded.problems, 'Invalid schedule file');
  if (loaded.missing) logger.debug({ file: config.cronsFile }, 'no schedule file; no schedules');
  const directory = triggersDirProblems(loaded.schedules, config.triggersDir);
  if (directory.length > 0) throw new ConfigError(directory);
  const zoneless = zonelessWarning(loaded.schedules);
  if (zoneless !== null) logger.warn({ file: config.cronsFile }, zoneless);
  return loaded.schedules;
};
