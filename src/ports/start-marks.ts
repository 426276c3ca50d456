import type { ShellRun } from './shell-executor.js';

/**
 * Marks a command leaves as the first thing it does, so that after the service died while an
 * action was `running`, the restarted service can tell a command that never started (start it
 * now: nothing is lost) from one that did (not started again: nothing runs twice).
 */
export interface StartMarks {
  /**
   * Where the command of this action marks its start: `where` is recorded with the action's
   * `running` record, `path` is the file the shell creates before it runs the command.
   */
  place(runId: string, actionIndex: number): { readonly where: string; readonly path: string };
  /**
   * Whether the command whose mark is `where` started: true or false, or null when this process
   * cannot tell (the mark was placed on another machine, or its directory is not here).
   */
  started(where: string): Promise<boolean | null>;
  /**
   * The outcome the command whose mark is `where` left when it ended after its service had let
   * it go (a stop that did not wait for it, a crash), or null: it left none — it has not ended,
   * it ran on another machine, or its service recorded it itself.
   */
  finished(where: string): Promise<ShellRun | null>;
  /**
   * Which attempt of its action the command whose mark is `where` was last started as
   * (ShellOptions.startAttempt): each attempt makes the mark again. 1 for a mark that says no
   * number (a first attempt's, or one made before marks said it); null when there is no mark or
   * this process cannot tell (placed on another machine, its directory is not here).
   */
  attempt(where: string): Promise<number | null>;
  /** Removes the mark (and an outcome left beside it) once the action's outcome is recorded; a missing mark is no error. */
  clear(where: string): Promise<void>;
}
