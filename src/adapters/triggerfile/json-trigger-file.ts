import type { Trigger } from '../../domain/triggers/trigger.js';
import { readConfigJson } from './config-json.js';
import { shownPath } from './shown-path.js';
import { validateTriggers, type TriggerCatalog } from '../../domain/triggers/validate-triggers.js';

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
  return { ...validateTriggers(read.value, shown, catalog), missing: false };
};
