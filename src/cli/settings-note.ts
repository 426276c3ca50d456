import type { CliIo } from './cli-io.js';
import { countOf } from './database-access.js';
import { terminalField } from './terminal-text.js';

/**
 * Said under the problems of `triggers check` and `crons check` when some of them come from the
 * settings rather than the file (an agent action where jobs are not configured, a provider
 * without its key): the command reads them as the server does, from its own environment and
 * `.env`, and a setting given to the server alone (`JOB_AGENT_COMMAND=… npm start`, as
 * docs/first-hour.md starts it) is not seen here, which the problem alone does not say.
 */
export const SETTINGS_NOTE =
  "note: an agent action's jobs and provider key are checked with this command's settings (its environment, then .env in this directory), which must be the server's: a setting given to the server alone (JOB_AGENT_COMMAND=… npm start) is not seen here (docs/cli.md)";

/** Whether some of `problems` come from the settings: those the file alone (`fileOnly`, checked without settings) does not give. */
export const hasSettingsProblems = (problems: readonly string[], fileOnly: readonly string[]): boolean =>
  problems.some((problem) => !fileOnly.includes(problem));

/** `triggers check` / `crons check`: each problem on a line of stderr (escaped), then how many. */
export const writeProblems = (io: CliIo, problems: readonly string[]): void => {
  for (const problem of problems) io.err.write(`${terminalField(problem)}\n`);
  io.err.write(`${countOf(problems.length, 'problem')} found\n`);
};
