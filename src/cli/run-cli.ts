import type { CliIo } from './cli-io.js';
import { commandUsage, resolveCommandLine } from './command-line.js';
import { commands, SERVING } from './commands.js';
import type { ConfigError } from '../container/config.js';
import { failureText, terminalField } from './terminal-text.js';
import { BadArgument, CliFailure, UsageError } from './usage-error.js';

export { SERVING } from './commands.js';

const processIo = (): CliIo => ({ out: process.stdout, err: process.stderr, input: process.stdin });

/**
 * Runs one CLI command; resolves to the process's exit code — 0 done, 1 failed (one line on
 * stderr saying why), 2 a command line that cannot be understood (the problem and the usage
 * of the command meant) — or to SERVING when `serve` started the service.
 */
export const runCli = async (argv: readonly string[], io: CliIo = processIo()): Promise<number> => {
  try {
    const resolved = resolveCommandLine(argv, commands(io));
    if (resolved.kind === 'help') {
      io.out.write(resolved.text);
      return 0;
    }
    let code: number;
    try {
      code = await resolved.command.run(resolved.parsed);
    } catch (error) {
      if (error instanceof BadArgument) throw new UsageError(error.message, commandUsage(resolved.command, { brief: true }));
      throw error;
    }
    return code === SERVING ? SERVING : code;
  } catch (error) {
    return report(error, io.err);
  }
};

/**
 * Failures the user acts on print their message alone: a usage error (with the usage), the
 * configuration's problems, a start-up error naming the setting (`DATABASE_URL: cannot connect
 * to …`), an error of the core (`No API key with id …`), a CLI failure. Anything else is
 * unexpected and says so, still on one line — never a stack.
 */
const report = async (error: unknown, err: NodeJS.WritableStream): Promise<number> => {
  if (error instanceof UsageError) {
    // The problem repeats the command line's words (`unknown command <x>`), each cut to 40
    // characters (command-line.ts), then escaped: one line, an argument cannot rewrite the
    // terminal nor forge the next line, nor fill the screen. The usage is the CLI's own.
    err.write(`${terminalField(error.message)}\n\n${error.usage}`);
    return 2;
  }
  const known = error instanceof CliFailure ? 'known' : await knownFailure(error);
  if (known !== undefined) {
    err.write(`${failureText((error as Error).message, known === 'known' ? undefined : known)}\n`);
    return 1;
  }
  err.write(`Error: ${failureText(error instanceof Error ? error.message : String(error))}\n`);
  return 1;
};

/**
 * Whether `error` is a known failure of the modules a command loaded (loaded here only when
 * something failed): the ConfigError itself, to print its problems line by line, or 'known'.
 */
const knownFailure = async (error: unknown): Promise<ConfigError | 'known' | undefined> => {
  const [{ ConfigError }, { StartupError }, { isDomainError }] = await Promise.all([
    import('../container/config.js'),
    import('../container/startup-error.js'),
    import('../domain/errors/domain-error.js'),
  ]);
  if (error instanceof ConfigError) return error;
  return error instanceof StartupError || isDomainError(error) ? 'known' : undefined;
};
