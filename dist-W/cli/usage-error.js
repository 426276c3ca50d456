/**
 * A command line that cannot be understood: the problem in one line, then `usage` (that of the
 * command that was meant), on stderr, and exit code 2.
 */
export class UsageError extends Error {
    usage;
    constructor(message, usage) {
        super(message);
        this.usage = usage;
        this.name = 'UsageError';
    }
}
/**
 * A command that failed for a reason the user can act on: its message alone on stderr (no
 * stack, no "Error:" prefix), exit code 1.
 */
export class CliFailure extends Error {
    constructor(message, options) {
        super(message, options);
        this.name = 'CliFailure';
    }
}
//# sourceMappingURL=usage-error.js.map