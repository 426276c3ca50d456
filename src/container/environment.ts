import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError, loadConfig, type AppConfig } from './config.js';

/**
 * Reads `.env` from the working directory when present (variables already set in the
 * environment win), then validates the configuration.
 * @throws ConfigError naming `.env` when it is there but no readable file (a directory, no
 *   permission), rather than Node's `Contents of '…' should be a valid string`.
 */
export const configFromEnvironment = (cwd: string = process.cwd()): AppConfig => {
  const file = resolve(cwd, '.env');
  const found = statSync(file, { throwIfNoEntry: false });
  if (found?.isDirectory()) throw new ConfigError([`.env (${file}) is a directory, not a file of NAME=value lines: remove it or put the file in its place`]);
  if (found !== undefined) {
    try {
      process.loadEnvFile(file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new ConfigError([`.env (${file}) cannot be read${typeof code === 'string' ? ` (${code})` : ''}: ${(error as Error).message}`]);
    }
  }
  return loadConfig(process.env, cwd);
};
