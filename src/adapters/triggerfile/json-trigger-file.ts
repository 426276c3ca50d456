import type { Trigger } from '../../domain/triggers/trigger.js';
import { duplicateKeyProblems, readConfigJson } from './config-json.js';
import { shownPath } from './shown-path.js';
import { shownInput } from '../../domain/errors/shown-input.js';
import { MAX_TRIGGER_NAME, validateTriggers, type TriggerCatalog } from '../../domain/triggers/validate-triggers.js';

export interface LoadedTriggers {
  readonly triggers: Trigger[];
  readonly problems: string[];
  /** True when the file does not exist: no triggers, not an error. */
  readonly missing: boolean;
}

/** Reads and validates the trigger file against `catalog`. Problems name the file as the operator wrote it. */
export const loadTriggerFile = async (path: string, catalog: TriggerCatalog, cwd: string = process.cwd()): Promise<LoadedTriggers> => {
  const shown = shownPath(path, cwd);
  const read = await readConfigJson(path, shown);
  if (read.kind === 'missing') return { triggers: [], problems: [], missing: true };
  if (read.kind === 'problem') return { triggers: [], problems: [read.problem], missing: false };
  const validation = validateTriggers(read.value, shown, catalog);
  // A field written twice is named as the validator names the entry (its name as JSON.parse kept it).
  const entries = Array.isArray(read.value) ? (read.value as unknown[]) : [];
  const duplicates = duplicateKeyProblems(read.duplicates, shown, (index) => {
    const entry = entries[index] as { name?: unknown } | undefined;
    const name = typeof entry?.name === 'string' && entry.name.trim() !== '' ? entry.name : undefined;
    return `${shown}: trigger #${index}${name === undefined ? '' : ` "${shownInput(name, MAX_TRIGGER_NAME)}"`}`;
  });
  return { triggers: duplicates.length > 0 ? [] : validation.triggers, problems: [...duplicates, ...validation.problems], missing: false };
};
