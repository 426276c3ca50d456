import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import type { Schedule } from '../../domain/schedules/schedule.js';
import { validateSchedules, type ScheduleCatalog } from '../../domain/schedules/validate-schedules.js';

export interface LoadedSchedules {
  readonly schedules: Schedule[];
  readonly problems: string[];
  /** True when the file does not exist: no schedules, not an error. */
  readonly missing: boolean;
}

/** Reads and validates the schedule file (CRONS_FILE) against `catalog`. Problems name the file as the operator wrote it. */
export const loadScheduleFile = async (path: string, catalog: ScheduleCatalog, cwd: string = process.cwd()): Promise<LoadedSchedules> => {
  const shown = relative(cwd, path).startsWith('..') ? path : relative(cwd, path);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { schedules: [], problems: [], missing: true };
    return { schedules: [], problems: [`${shown}: cannot be read (${(error as Error).message})`], missing: false };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { schedules: [], problems: [`${shown}: not valid JSON (${(error as Error).message})`], missing: false };
  }
  return { ...validateSchedules(parsed, shown, catalog), missing: false };
};
