export interface ShellRun {
  /** Exit code, or null when the command was killed (timeout). */
  readonly exitCode: number | null;
  readonly timedOut: boolean;
  /** Killed because the caller aborted. */
  readonly aborted: boolean;
  readonly durationMs: number;
  /** stdout then stderr, truncated to the executor's limit. */
  readonly output: string;
}

export interface ShellOptions {
  readonly cwd: string;
  readonly timeoutMs: number;
  /**
   * The whole environment of the command. Required, and nothing is added to it: the service's
   * own environment (its secrets, DATABASE_URL) never reaches a command by default.
   */
  readonly env: Readonly<Record<string, string>>;
  /** Aborting kills the command like a timeout does (the result says `aborted`); one aborted already is never started (notStarted). */
  readonly signal?: AbortSignal;
  /**
   * For a sandbox that runs the command in a PID namespace of its own (BwrapSandboxedShell): the
   * shell's fd 3 gets the sandbox's report of that namespace's first process (`{"child-pid": N}`,
   * bubblewrap's --info-fd 3). A kill (timeout, abort) kills that process first — its namespace,
   * the command included, goes with it — and one that comes before the report waits for it (at
   * most the executor's sandboxReportWaitMs, 2 s by default): killed while it made the namespace, bwrap left it running.
   */
  readonly sandboxReport?: boolean;
  /**
   * A file the shell creates before it runs the command (StartMarks): it exists if and only if
   * the command was started. When it cannot be created the command is not run (exit code 125,
   * the reason in the output).
   */
  readonly startMark?: string;
  /**
   * Which attempt of its action this run is (1: the first), with `startMark`: the shell writes a
   * number above 1 into the mark (it replaces what an earlier attempt wrote there), so that after
   * a stop the mark tells which attempt was running (StartMarks.attempt). The mark of a first
   * attempt (or one without `startAttempt`) stays empty.
   */
  readonly startAttempt?: number;
  /**
   * Which part of an output longer than the executor keeps is kept: its beginning (the
   * default), its end (a job's log), or its first `head` and last `tail` characters around a
   * line saying how many were left out (joinEnds; a trigger command's record: how it started,
   * and how it ended, where a failing command says why).
   */
  readonly keep?: 'head' | 'tail' | { readonly head: number; readonly tail: number };
}

/** Runs shell command lines. */
export interface ShellExecutor {
  /**
   * Runs `command` with `/bin/sh -c` in `cwd`, with the service's own permissions.
   * Kills the command and everything it started after `timeoutMs` or on abort.
   * Never throws for a failing command: the outcome is in the result. Throws only when
   * the shell itself cannot be started (an environment larger than the system allows included).
   */
  run(command: string, options: ShellOptions): Promise<ShellRun>;
}
