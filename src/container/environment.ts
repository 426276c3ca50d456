import { resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { AI_PROVIDERS } from '../adapters/ai/ai-providers.js';
import { type BoundedFile, readBoundedFileSync } from '../adapters/shared/bounded-file.js';
import { ConfigError, loadConfig, settingNames, type AppConfig } from './config.js';
import { checkEnvFile, PROCESS_VARIABLES } from './env-file-check.js';

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
 * name that is no setting, a line that does not parse and a name given twice are `warn`ed.
 * @throws ConfigError naming `.env` when it is there but no readable file (a directory, no
 *   permission), rather than Node's `Contents of '…' should be a valid string`.
 */
export const configFromEnvironment = (cwd: string = process.cwd(), warn: (line: string) => void = toStderr): AppConfig => {
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
    const merged = { ...parsed, ...process.env };
    const commandEnv = (merged.COMMAND_ENV ?? '').split(',').map((name) => name.trim());
    const { problems, warnings } = checkEnvFile(text, {
      settings: settingNames(merged, cwd),
      others: new Set([...commandEnv, ...AI_PROVIDERS.map((provider) => provider.keyVariable), ...PROCESS_VARIABLES]),
      prefixes: ['AGENT_'],
    });
    if (problems.length > 0) throw new ConfigError(problems);
    for (const line of warnings) warn(line);
    // As process.loadEnvFile sets them (a variable already in the environment wins), from the text read above.
    for (const [name, value] of Object.entries(parsed)) if (process.env[name] === undefined) process.env[name] = value;
  }
  return loadConfig(process.env, cwd);
};
