/**
 * A command line that cannot be understood: the problem in one line, then `usage` (that of the
 * command that was meant), on stderr, and exit code 2.
 */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * A value on the command line that the command refuses once it looks at it (`keys create
 * --name ""`): a command line that cannot be used, as a UsageError — exit code 2 with the
 * usage of the command (run-cli.ts adds it). Thrown before anything is done.
 */
export class BadArgument extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BadArgument';
  }
}

/**
 * A command that failed for a reason the user can act on: its message alone on stderr (no
 * stack, no "Error:" prefix), exit code 1.
 */
export class CliFailure extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CliFailure';
  }
}
