import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { shownInput } from '../domain/errors/shown-input.js';
import { didYouMean, nearestName } from '../domain/text/nearest-name.js';
import { UsageError } from './usage-error.js';

/**
 * The CLI's command line: a table of commands (commands.ts), each with its options, usage
 * text and the function that runs it. This module parses argv against that table with
 * `node:util`'s parseArgs in strict mode — an unknown command, sub-command or option, a
 * missing value or a stray argument is a UsageError carrying the usage of the command that
 * was meant (exit code 2). It imports nothing but node:util, node:fs and shownInput (a module
 * of no imports): parsing, `--help`, `--version` and usage errors cost no module loading. An
 * argument a usage error repeats is cut as other refused values are (its first 40 characters
 * and `…`, never half a surrogate pair); run-cli.ts escapes the cut text, so a cut never
 * splits an escape.
 */

export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  /** Placeholder of a string option's value in the usage (`NAME`). */
  readonly value?: string;
  readonly short?: string;
  readonly help: string;
}

/** What a command's `run` receives: the parsed options and positionals. */
export interface ParsedCommand {
  readonly values: Readonly<Record<string, string | boolean | undefined>>;
  readonly positionals: readonly string[];
}

export interface CommandSpec {
  /** The words that select it: `['keys', 'create']`. */
  readonly words: readonly [string] | readonly [string, string];
  /** The arguments after the words, as the usage shows them: `--name NAME [--json]`. */
  readonly synopsis: string;
  /** One line for the command lists. */
  readonly summary: string;
  /** What `--help` adds below the usage line: what the command does, where it works. */
  readonly description: string;
  readonly options: Readonly<Record<string, OptionSpec>>;
  /** Names of the positional arguments, all required (`['ID']`). */
  readonly positionals?: readonly string[];
  /** Options that must be given. */
  readonly required?: readonly string[];
  /**
   * What parseArgs cannot see: a value that can never be right (an id that is no UUID), as the
   * problem's one line, or undefined. Checked with the rest of the command line: a usage error
   * (exit code 2) before anything is loaded or opened, wherever the command would work.
   */
  readonly check?: (parsed: ParsedCommand) => string | undefined;
  /** Runs it (loading what it needs); resolves to the exit code. */
  readonly run: (parsed: ParsedCommand) => Promise<number>;
}

/** What the command line asks for. */
export type Resolved =
  | { readonly kind: 'run'; readonly command: CommandSpec; readonly parsed: ParsedCommand }
  | { readonly kind: 'help'; readonly text: string };

const PROGRAM = 'agent-gateway';
const HELP_OPTION: OptionSpec = { type: 'boolean', short: 'h', help: 'show this help' };
const isHelp = (word: string | undefined): boolean => word === '--help' || word === '-h';
const isVersion = (word: string | undefined): boolean => word === '--version' || word === '-V';
/** The package's version, from its package.json (two levels up from src/cli and dist/cli alike). */
const version = (): string => (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const name = (command: CommandSpec): string => command.words.join(' ');
const line = (command: CommandSpec): string => [name(command), command.synopsis].filter((part) => part !== '').join(' ');

/**
 * Longer left cells than this get their text on the next line: padded to the longest one
 * (`deliveries list` and its options, 97 characters), every line of the program's usage ran to
 * 190 characters and wrapped into a jumble on an 80-column terminal.
 */
const WIDEST_COLUMN = 34;

const table = (rows: ReadonlyArray<readonly [string, string]>): string => {
  const width = Math.max(0, ...rows.map(([left]) => left.length).filter((length) => length <= WIDEST_COLUMN));
  return rows.map(([left, right]) => (left.length <= width ? `  ${left.padEnd(width)}   ${right}` : `  ${left}\n  ${''.padEnd(width)}   ${right}`)).join('\n');
};

/** The overall usage: every command with its summary. */
export const programUsage = (commands: readonly CommandSpec[]): string =>
  `Usage: ${PROGRAM} <command> [options]

Commands:
${table([...commands.map((c) => [line(c), c.summary] as const), ['help [COMMAND]', 'show this text, or the help of a command'], ['--version', 'print the version']])}

Run "${PROGRAM} <command> --help" for a command's options. Configuration comes from the
environment and from .env in the working directory: the CLI needs the same DATABASE_URL or
DATA_DIR as the server (see docs/cli.md and docs/configuration.md).
`;

/** The usage of a group (`keys`): its sub-commands. */
export const groupUsage = (group: string, commands: readonly CommandSpec[]): string => {
  const members = commands.filter((c) => c.words.length === 2 && c.words[0] === group);
  return `Usage: ${PROGRAM} ${group} <command> [options]

Commands:
${table(members.map((c) => [line(c), c.summary] as const))}

Run "${PROGRAM} ${group} <command> --help" for a command's options.
`;
};

/**
 * The usage of one command: its line, what it does (`--help`; a usage error shows the rest
 * only), its options.
 */
export const commandUsage = (command: CommandSpec, { brief = false }: { readonly brief?: boolean } = {}): string => {
  const options = Object.entries({ ...command.options, help: HELP_OPTION }).map(
    ([option, spec]) => [`${spec.short ? `-${spec.short}, ` : ''}--${option}${spec.value ? ` ${spec.value}` : ''}`, spec.help] as const,
  );
  return `Usage: ${PROGRAM} ${line(command)}
${brief ? '' : `\n${command.description.trim()}\n`}
Options:
${table(options)}
${brief ? `\nRun "${PROGRAM} ${name(command)} --help" for more.\n` : ''}`;
};

/** The long names of the options `args` already give (`--json`, `--name=x`, `-j`), to suggest none of them again. */
const givenOptions = (command: CommandSpec, args: readonly string[]): Set<string> => {
  const given = new Set<string>();
  for (const arg of args) {
    if (arg === '--') break;
    if (arg.startsWith('--')) given.add(arg.slice(2).split('=')[0]);
    else if (arg.startsWith('-') && arg.length > 1)
      for (const [option, spec] of Object.entries(command.options)) if (spec.short !== undefined && arg.slice(1).includes(spec.short)) given.add(option);
  }
  return given;
};

/** A parse error of node:util as one short line (its own messages run to three sentences). */
const parseProblem = (error: Error & { code?: string }, command: CommandSpec, args: readonly string[]): string => {
  const quoted = /'([^']*)'/.exec(error.message)?.[1];
  switch (error.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
      // A long option one or two letters off (`--nam`) names the one meant, unless it is given already (`--json --jsn`).
      const given = givenOptions(command, args);
      const candidates = Object.keys(command.options).filter((option) => !given.has(option));
      const meant = quoted?.startsWith('--') ? nearestName(quoted.slice(2), candidates) : undefined;
      return `unknown option ${shownInput(quoted ?? '')}`.trim() + (meant === undefined ? '' : `; did you mean --${meant}?`);
    }
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument ${shownInput(quoted ?? '')}`.trim();
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      // "Option '--name <value>' argument missing" / "Option '--json' does not take an argument"
      return /does not take/.test(error.message) ? `${(quoted ?? '').split(' ')[0]} takes no value` : `${(quoted ?? '').split(' ')[0]} needs a value`;
    default:
      return error.message;
  }
};

/** Parses `args` (what follows the command's words) for `command`. */
const parseFor = (command: CommandSpec, args: readonly string[]): Resolved => {
  const options = Object.fromEntries(
    Object.entries({ ...command.options, help: HELP_OPTION }).map(([option, spec]) => [
      option,
      spec.short ? { type: spec.type, short: spec.short } : { type: spec.type },
    ]),
  );
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({
      args: negativeValues(command, args),
      options,
      allowPositionals: (command.positionals ?? []).length > 0,
      strict: true,
    }) as typeof parsed;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'))
      throw new UsageError(parseProblem(error as Error, command, args), commandUsage(command, { brief: true }));
    throw error;
  }
  if (parsed.values.help === true) return { kind: 'help', text: commandUsage(command) };
  const expected = command.positionals ?? [];
  if (parsed.positionals.length < expected.length) {
    throw new UsageError(`${name(command)} needs ${expected.slice(parsed.positionals.length).join(' ')}`, commandUsage(command, { brief: true }));
  }
  if (parsed.positionals.length > expected.length) {
    throw new UsageError(`unexpected argument ${shownInput(parsed.positionals[expected.length])}`, commandUsage(command, { brief: true }));
  }
  for (const option of command.required ?? []) {
    if (parsed.values[option] === undefined) {
      const value = command.options[option]?.value;
      throw new UsageError(`${name(command)} needs --${option}${value ? ` ${value}` : ''}`, commandUsage(command, { brief: true }));
    }
  }
  const { help: _help, ...values } = parsed.values;
  // An id pasted with a space around it ("<uuid> ") is the id.
  const positionals = parsed.positionals.map((positional) => positional.trim());
  const problem = command.check?.({ values, positionals });
  if (problem !== undefined) throw new UsageError(problem, commandUsage(command, { brief: true }));
  return { kind: 'run', command, parsed: { values, positionals } };
};

/**
 * `--limit -1` as `--limit=-1`: parseArgs takes a value starting with `-` for an option and
 * refuses it ("needs a value"), though no option looks like a negative number. Given as the
 * value, it is refused for what it is (`limit must be a whole number from 1 to 500`).
 */
const negativeValues = (command: CommandSpec, args: readonly string[]): string[] => {
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const option = args[i].startsWith('--') ? command.options[args[i].slice(2)] : undefined;
    const next = args[i + 1];
    if (option?.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      joined.push(`${args[i]}=${next}`);
      i++;
    } else joined.push(args[i]);
  }
  return joined;
};

/**
 * What `argv` (without node and the script) asks for: a command to run with its parsed
 * options, or a help text to print. Throws UsageError (with the usage to show) when it
 * cannot be understood.
 */
export const resolveCommandLine = (argv: readonly string[], commands: readonly CommandSpec[]): Resolved => {
  const [first, second, ...rest] = argv;
  if (first === undefined) throw new UsageError('no command given', programUsage(commands));
  if (isHelp(first)) {
    if (argv.length > 1) throw new UsageError(`unexpected argument ${shownInput(second)}`, programUsage(commands));
    return { kind: 'help', text: programUsage(commands) };
  }
  if (isVersion(first)) {
    if (argv.length > 1) throw new UsageError(`unexpected argument ${shownInput(second)}`, programUsage(commands));
    return { kind: 'help', text: `${PROGRAM} ${version()}\n` };
  }
  if (first === 'help') {
    // `help`, `help keys`, `help keys create`: the same as --help there.
    if (argv.length === 1) return { kind: 'help', text: programUsage(commands) };
    return resolveCommandLine([...argv.slice(1), '--help'], commands);
  }
  if (first.startsWith('-')) throw new UsageError(`unknown option ${shownInput(first)} (options follow the command)`, programUsage(commands));
  const single = commands.find((c) => c.words.length === 1 && c.words[0] === first);
  if (single) return parseFor(single, argv.slice(1));
  const members = commands.filter((c) => c.words.length === 2 && c.words[0] === first);
  if (members.length === 0)
    throw new UsageError(
      `unknown command ${shownInput(first)}${didYouMean(first, new Set(commands.flatMap((c) => c.words.slice(0, 1))))}`,
      programUsage(commands),
    );
  const usage = groupUsage(first, commands);
  const choices = members.map((c) => c.words[1]);
  const choiceList = `${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}`;
  if (second === undefined) throw new UsageError(`${first} needs a command: ${choices.length === 1 ? choices[0] : choiceList}`, usage);
  if (isHelp(second)) {
    if (rest.length > 0) throw new UsageError(`unexpected argument ${shownInput(rest[0])}`, usage);
    return { kind: 'help', text: usage };
  }
  const member = members.find((c) => c.words[1] === second);
  if (member === undefined) {
    throw new UsageError(
      second.startsWith('-')
        ? `unknown option ${shownInput(second)} (options follow the command)`
        : `unknown ${first} command ${shownInput(second)}${didYouMean(
            second,
            members.flatMap((c) => c.words.slice(1, 2)),
          )}`,
      usage,
    );
  }
  return parseFor(member, rest);
};
