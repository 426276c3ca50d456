import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import type { Trigger } from '../../domain/triggers/trigger.js';
import { validateTriggers, type TriggerCatalog } from '../../domain/triggers/validate-triggers.js';

export interface LoadedTriggers {
  readonly triggers: Trigger[];
  readonly problems: string[];
  /** True when the file does not exist: no triggers, not an error. */
  readonly missing: boolean;
}

/** Reads and validates the trigger file against `catalog`. Problems name the file as the operator wrote it. */
export const loadTriggerFile = async (path: string, catalog: TriggerCatalog, cwd: string = process.cwd()): Promise<LoadedTriggers> => {
  const shown = relative(cwd, path).startsWith('..') ? path : relative(cwd, path);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { triggers: [], problems: [], missing: true };
    return { triggers: [], problems: [`${shown}: cannot be read (${(error as Error).message})`], missing: false };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { triggers: [], problems: [`${shown}: not valid JSON (${(error as Error).message})`], missing: false };
  }
  return { ...validateTriggers(parsed, shown, catalog), missing: false };
};
