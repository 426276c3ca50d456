import { existsSync } from 'node:fs';
import { loadScheduleFile } from '../adapters/triggerfile/json-schedule-file.js';
import { loadTriggerFile } from '../adapters/triggerfile/json-trigger-file.js';
import { shownPath } from '../adapters/triggerfile/shown-path.js';
import { checkAgentActionsRunnable } from '../application/triggers/check-agent-actions.js';
import { checkTriggerSecrets } from '../application/triggers/check-trigger-secrets.js';
import type { Schedule } from '../domain/schedules/schedule.js';
import type { Trigger } from '../domain/triggers/trigger.js';
import type { SecretStore } from '../ports/secret-store.js';
import type { AppConfig } from './config.js';
import { jobsUnavailableReason, type JobSettings } from './jobs-availability.js';
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

/** One file, checked as start-up checks it. */
export interface CheckedFile<T> {
  readonly entries: readonly T[];
  readonly problems: readonly string[];
  /** The file does not exist: no entries, not an error. */
  readonly missing: boolean;
}

type FileSettings = Pick<AppConfig, 'triggersFile' | 'cronsFile' | 'triggersDir'> & JobSettings;
type Entry = Pick<Trigger, 'name' | 'enabled' | 'actions'>;

/** TRIGGERS_DIR's problem when a command action would run there and it does not exist. */
export const triggersDirProblems = (entries: readonly Entry[], triggersDir: string): string[] =>
  entries.some((entry) => entry.actions.some((action) => action.type === 'command')) && !existsSync(triggersDir)
    ? [`TRIGGERS_DIR: ${triggersDir} does not exist (command actions run there)`]
    : [];

/**
 * What a file's valid entries still need: each enabled agent action's provider secret (with
 * `secrets`) and jobs (`jobs`: the settings' reason they run none, see jobsUnavailableReason),
 * and TRIGGERS_DIR for command actions.
 */
const entryProblems = (
  entries: readonly Entry[],
  file: string,
  kind: 'trigger' | 'schedule',
  triggersDir: string,
  secrets?: SecretStore,
  jobs?: string,
): string[] => [
  ...(secrets ? checkTriggerSecrets(entries, secrets, shownPath(file), kind) : []),
  ...checkAgentActionsRunnable(entries, jobs, shownPath(file), kind),
  ...triggersDirProblems(entries, triggersDir),
];

/** The trigger file at `file`, with what its triggers need (see entryProblems). */
export const checkTriggerFile = async (file: string, triggersDir: string, secrets?: SecretStore, jobs?: string): Promise<CheckedFile<Trigger>> => {
  const loaded = await loadTriggerFile(file, triggerCatalog());
  const problems = loaded.problems.length > 0 ? loaded.problems : entryProblems(loaded.triggers, file, 'trigger', triggersDir, secrets, jobs);
  return { entries: loaded.triggers, problems, missing: loaded.missing };
};

/** The schedule file at `file`, with what its schedules need (see entryProblems). */
export const checkScheduleFile = async (file: string, triggersDir: string, secrets?: SecretStore, jobs?: string): Promise<CheckedFile<Schedule>> => {
  const loaded = await loadScheduleFile(file, scheduleCatalog());
  const problems = loaded.problems.length > 0 ? loaded.problems : entryProblems(loaded.schedules, file, 'schedule', triggersDir, secrets, jobs);
  return { entries: loaded.schedules, problems, missing: loaded.missing };
};

/**
 * Reads and validates both files; with `secrets`, also that each enabled agent action's
 * provider has its secret; that jobs run when an enabled agent action needs them; and that
 * TRIGGERS_DIR exists when a command action needs it.
 */
export const readConfigFiles = async (config: FileSettings, secrets?: SecretStore): Promise<ConfigFiles> => {
  const jobs = jobsUnavailableReason(config);
  const [triggers, schedules] = await Promise.all([
    checkTriggerFile(config.triggersFile, config.triggersDir, secrets, jobs),
    checkScheduleFile(config.cronsFile, config.triggersDir, secrets, jobs),
  ]);
  // Both files' commands need TRIGGERS_DIR: said once.
  const problems = [...new Set([...triggers.problems, ...schedules.problems])];
  return {
    triggers: triggers.entries,
    schedules: schedules.entries,
    problems,
    triggersMissing: triggers.missing,
    schedulesMissing: schedules.missing,
  };
};
