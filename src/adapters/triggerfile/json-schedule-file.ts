import type { Schedule } from '../../domain/schedules/schedule.js';
import { readConfigJson } from './config-json.js';
import { shownPath } from './shown-path.js';
import { validateSchedules, type ScheduleCatalog } from '../../domain/schedules/validate-schedules.js';

export interface LoadedSchedules {
  readonly schedules: Schedule[];
  readonly problems: string[];
  /** True when the file does not exist: no schedules, not an error. */
  readonly missing: boolean;
}

/** Reads and validates the schedule file (CRONS_FILE) against `catalog`. Problems name the file as the operator wrote it. */
export const loadScheduleFile = async (path: string, catalog: ScheduleCatalog, cwd: string = process.cwd()): Promise<LoadedSchedules> => {
  const shown = shownPath(path, cwd);
  const read = await readConfigJson(path, shown);
  if (read.kind === 'missing') return { schedules: [], problems: [], missing: true };
  if (read.kind === 'problem') return { schedules: [], problems: [read.problem], missing: false };
  return { ...validateSchedules(read.value, shown, catalog), missing: false };
};
