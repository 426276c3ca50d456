/** A command line that cannot be understood: exit code 2 with the usage text. */
export class UsageError extends Error {}
