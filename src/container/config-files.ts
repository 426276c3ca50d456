import { statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { loadScheduleFile } from '../adapters/triggerfile/json-schedule-file.js';
import { loadTriggerFile } from '../adapters/triggerfile/json-trigger-file.js';
import { shownPath } from '../adapters/triggerfile/shown-path.js';
import { checkAgentActionsRunnable } from '../application/triggers/check-agent-actions.js';
import { checkTriggerSecrets } from '../application/triggers/check-trigger-secrets.js';
import { runNameClashes } from '../domain/schedules/run-name-clash.js';
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

/**
 * TRIGGERS_DIR's problem when a command action would run there and it does not exist, or is no
 * directory (a file: every command failed with 'spawn ENOTDIR', the file accepted).
 */
export const triggersDirProblems = (entries: readonly Entry[], triggersDir: string): string[] => {
  if (!entries.some((entry) => entry.actions.some((action) => action.type === 'command'))) return [];
  const found = statSync(triggersDir, { throwIfNoEntry: false });
  if (found === undefined) return [`TRIGGERS_DIR: ${triggersDir} does not exist (command actions run there)`];
  return found.isDirectory() ? [] : [`TRIGGERS_DIR: ${triggersDir} is not a directory (command actions run there)`];
};

/** The script a command starts when its first word is a relative path (`./deploy.sh`, `bin/x`), else undefined (a name on PATH, an absolute path, a template). */
const relativeScript = (command: string): string | undefined => {
  // Assignments before the command (`FOO=1 ./x.sh`) are skipped.
  const first = command
    .trim()
    .split(/\s+/)
    .find((word) => !/^[A-Za-z_]\w*=/.test(word));
  if (first === undefined || !first.includes('/') || isAbsolute(first) || /[{}'"$`\\*?~;|&<>()]/.test(first)) return undefined;
  return first;
};

/**
 * Warnings, not problems (a script may be deployed after the file): each enabled command action
 * whose first word is a relative path to a file that is missing in TRIGGERS_DIR (the shell
 * would answer exit code 127) or not executable (126), naming the entry, the action and the fix.
 */
export const commandScriptWarnings = (entries: readonly Entry[], triggersDir: string, file: string, kind: 'trigger' | 'schedule'): string[] =>
  entries.flatMap((entry, index) =>
    entry.actions.flatMap((action, i) => {
      if (!entry.enabled || action.type !== 'command') return [];
      const script = relativeScript(action.command);
      if (script === undefined) return [];
      const path = join(triggersDir, script);
      const where = `${shownPath(file)}: ${kind} #${index} "${entry.name}": actions[${i}].command: ${script}`;
      let mode: number;
      try {
        const found = statSync(path);
        if (!found.isFile()) return [`${where} is not a file in TRIGGERS_DIR (${path}): the command would fail (exit code 126)`];
        mode = found.mode;
      } catch {
        return [`${where} does not exist in TRIGGERS_DIR (${path}): the command fails (exit code 127, command not found) until it is deployed there`];
      }
      return mode & 0o111
        ? []
        : [`${where} is not executable (mode ${(mode & 0o7777).toString(8).padStart(4, '0')}): the command would fail (exit code 126); chmod +x ${path}`];
    }),
  );

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
 * A trigger named as a schedule's runs are recorded (`cron:<name>`) beside that schedule, one
 * problem each naming both files and entries (runNameClashes); checked when both files have no
 * problem of their own (their entries then are the files' entries, by index).
 */
export const runNameProblems = (
  triggers: CheckedFile<Pick<Trigger, 'name'>>,
  schedules: CheckedFile<Pick<Schedule, 'name'>>,
  triggersFile: string,
  cronsFile: string,
): string[] =>
  triggers.problems.length > 0 || schedules.problems.length > 0
    ? []
    : runNameClashes(triggers.entries, schedules.entries, shownPath(triggersFile), shownPath(cronsFile));

/**
 * Reads and validates both files; with `secrets`, also that each enabled agent action's
 * provider has its secret; that jobs run when an enabled agent action needs them; that
 * TRIGGERS_DIR exists when a command action needs it; and that no trigger is named as a
 * schedule's runs are (runNameProblems).
 */
export const readConfigFiles = async (config: FileSettings, secrets?: SecretStore): Promise<ConfigFiles> => {
  const jobs = jobsUnavailableReason(config);
  const [triggers, schedules] = await Promise.all([
    checkTriggerFile(config.triggersFile, config.triggersDir, secrets, jobs),
    checkScheduleFile(config.cronsFile, config.triggersDir, secrets, jobs),
  ]);
  // Both files' commands need TRIGGERS_DIR: said once.
  const problems = [...new Set([...triggers.problems, ...schedules.problems]), ...runNameProblems(triggers, schedules, config.triggersFile, config.cronsFile)];
  return {
    triggers: triggers.entries,
    schedules: schedules.entries,
    problems,
    triggersMissing: triggers.missing,
    schedulesMissing: schedules.missing,
  };
};
