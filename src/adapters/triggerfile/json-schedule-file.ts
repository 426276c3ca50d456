import type { Schedule } from '../../domain/schedules/schedule.js';
import { duplicateKeyProblems, readConfigJson } from './config-json.js';
import { shownInput } from '../../domain/errors/shown-input.js';
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
  const validation = validateSchedules(read.value, shown, catalog);
  // A field written twice is named as the validator names the entry (its name as JSON.parse kept it).
  const entries = Array.isArray(read.value) ? (read.value as unknown[]) : [];
  const duplicates = duplicateKeyProblems(read.duplicates, shown, (index) => {
    const entry = entries[index] as { name?: unknown } | undefined;
    const name = typeof entry?.name === 'string' && entry.name.trim() !== '' ? entry.name : undefined;
    return `${shown}: schedule #${index}${name === undefined ? '' : ` "${shownInput(name, 200)}"`}`;
  });
  return { schedules: duplicates.length > 0 ? [] : validation.schedules, problems: [...duplicates, ...validation.problems], missing: false };
};
