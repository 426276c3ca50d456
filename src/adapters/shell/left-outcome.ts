import { existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { ShellRun } from '../../ports/shell-executor.js';

// Plain functions and erasable types only: the spawner process (spawner/) loads this file as
// TypeScript under the tests, where Node strips the types itself.

/** Where a command that outlived its service leaves its outcome: beside its start mark. */
export const outcomePathOf = (markPath: string): string => `${markPath}.outcome`;

/**
 * Leaves a command's outcome beside its start mark, for the service's next start to record
 * (the spawner does, for a command that ended after its service let it go). Written whole or not
 * at all (a new file renamed into place); nothing when the mark is gone — the action's record was
 * made without it (as interrupted) and nobody would read it.
 */
export const leaveOutcome = (markPath: string, run: ShellRun): void => {
  if (!existsSync(markPath)) return;
  const path = outcomePathOf(markPath);
  const fresh = `${path}.${process.pid}.new`;
  writeFileSync(fresh, JSON.stringify(run), { mode: 0o600 });
  renameSync(fresh, path);
  // The mark cleared meanwhile (its record made without this outcome): nobody would read it.
  if (!existsSync(markPath)) rmSync(path, { force: true });
};

/** The outcome a command left beside its start mark at `markPath`, or null when it left none (still running, never ended, or unreadable). */
export const readOutcome = async (markPath: string): Promise<ShellRun | null> => {
  const text = await readFile(outcomePathOf(markPath), 'utf8').catch(() => null);
  if (text === null) return null;
  try {
    const run = JSON.parse(text) as Partial<ShellRun>;
    const valid =
      (run.exitCode === null || Number.isInteger(run.exitCode)) &&
      typeof run.timedOut === 'boolean' &&
      typeof run.aborted === 'boolean' &&
      typeof run.durationMs === 'number' &&
      typeof run.output === 'string';
    return valid ? (run as ShellRun) : null;
  } catch {
    return null;
  }
};

/**
 * Which attempt the command whose start mark is at `markPath` was started as: the number the
 * shell wrote into the mark (runShell: a retry's), 1 for an empty mark (a first attempt's, or one
 * made before marks held a number) or one that holds no number; null when there is no mark.
 */
export const readMarkAttempt = async (markPath: string): Promise<number | null> => {
  const text = await readFile(markPath, 'utf8').catch(() => null);
  if (text === null) return null;
  return /^[1-9][0-9]{0,5}$/.test(text) ? Number(text) : 1;
};
