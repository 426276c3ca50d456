import { resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { AI_PROVIDERS } from '../adapters/ai/ai-providers.js';
import { type BoundedFile, readBoundedFileSync } from '../adapters/shared/bounded-file.js';
import { ConfigError, loadConfig, settingNames, type AppConfig } from './config.js';
import { checkEnvFile, checkEnvironmentNames, type KnownNames, PROCESS_VARIABLES } from './env-file-check.js';

/** The largest `.env` read: a file of settings is a few kB (a log named by mistake is refused). */
const MAX_ENV_FILE_BYTES = 1024 * 1024;

/** Where a warning about `.env` goes: one line on stderr. */
const toStderr = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

/**
 * Reads `.env` from the working directory when present (variables already set in the
 * environment win), then validates the configuration.
 *
 * What Node's parser would drop without a word is reported first (env-file-check.ts): a near-miss
 * of a setting's name, or a line that is not NAME=value but starts with one, stops here; another
 * name that is no setting, a line that does not parse and a name given twice are `warn`ed, and so
 * is, with `checkEnvironment` (the service's start), a near-miss of a setting's name in the
 * environment itself.
 * @throws ConfigError naming `.env` when it is there but no readable file (a directory, no
 *   permission), rather than Node's `Contents of '…' should be a valid string`.
 */
export const configFromEnvironment = (
  cwd: string = process.cwd(),
  warn: (line: string) => void = toStderr,
  options: { readonly checkEnvironment?: boolean } = {},
): AppConfig => {
  const environmentNames = Object.keys(process.env);
  let known: KnownNames | undefined;
  const file = resolve(cwd, '.env');
  let read: BoundedFile | undefined;
  try {
    read = readBoundedFileSync(file, MAX_ENV_FILE_BYTES);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') throw new ConfigError([`.env (${file}) cannot be read${typeof code === 'string' ? ` (${code})` : ''}: ${(error as Error).message}`]);
  }
  if (read?.kind === 'directory')
    throw new ConfigError([`.env (${file}) is a directory, not a file of NAME=value lines: remove it or put the file in its place`]);
  // A FIFO was read for good (start-up and every CLI command hung without a word), a device such
  // as /dev/zero without end; /dev/null (mounted over a baked-in .env to blank it) reads empty.
  if (read?.kind === 'pipe')
    throw new ConfigError([`.env (${file}) is a FIFO or a socket, which would be waited on for good: write the NAME=value lines to a file`]);
  if (read?.kind === 'too-large') throw new ConfigError([`.env (${file}) is more than ${MAX_ENV_FILE_BYTES} bytes: a file of NAME=value lines is far smaller`]);
  if (read?.kind === 'bytes') {
    let text = read.bytes.toString('utf8');
    // A byte-order mark (Windows editors write one) is no part of the first name: Node's parser
    // kept it there, so the first line's setting (DATABASE_URL: a new embedded database) was
    // silently not set, while the check below, which trims it, found nothing wrong.
    if (text.startsWith('\uFEFF')) text = text.slice(1);
    const parsed = parseEnv(text);
    known = knownNames({ ...parsed, ...process.env }, cwd);
    const { problems, warnings } = checkEnvFile(text, known);
    if (problems.length > 0) throw new ConfigError(problems);
    for (const line of warnings) warn(line);
    // As process.loadEnvFile sets them (a variable already in the environment wins), from the text read above.
    for (const [name, value] of Object.entries(parsed)) if (process.env[name] === undefined) process.env[name] = value;
  }
  // A setting misspelled in the environment itself (systemd's EnvironmentFile, docker -e, a
  // shell's export) was ignored without a word, as Node's parser ignores one in .env. The
  // environment also holds other programs' variables (another tool's DATABASE_URI), so there a
  // near-miss is a warning, not a stop; a name of .env was checked above. The service's start
  // only (checkEnvironment): finding the settings' names costs ~25 ms, which every CLI command
  // without a .env would pay, and a CLI command names the database it uses anyway.
  if (options.checkEnvironment === true) for (const line of checkEnvironmentNames(environmentNames, known ?? knownNames(process.env, cwd))) warn(line);
  return loadConfig(process.env, cwd);
};

/** The names `.env` and the environment are checked against: every setting, and the others the service or its commands read. */
const knownNames = (env: NodeJS.ProcessEnv, cwd: string): KnownNames => {
  const commandEnv = (env.COMMAND_ENV ?? '').split(',').map((name) => name.trim());
  return {
    settings: settingNames(env, cwd),
    others: new Set([...commandEnv, ...AI_PROVIDERS.map((provider) => provider.keyVariable), ...PROCESS_VARIABLES]),
    prefixes: ['AGENT_'],
  };
};
