export interface ShellRun {
  /** Exit code, or null when the command was killed (timeout). */
  readonly exitCode: number | null;
  readonly timedOut: boolean;
  readonly durationMs: number;
  /** stdout then stderr, truncated to the executor's limit. */
  readonly output: string;
}

/** Runs shell command lines. */
export interface ShellExecutor {
  /**
   * Runs `command` with `/bin/sh -c` in `cwd`, with the service's own permissions and
   * environment. Kills the command and everything it started after `timeoutMs`.
   * Never throws for a failing command: the outcome is in the result. Throws only when
   * the shell itself cannot be started.
   */
  run(command: string, options: { readonly cwd: string; readonly timeoutMs: number }): Promise<ShellRun>;
}
