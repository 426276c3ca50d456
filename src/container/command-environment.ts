import { homedir } from 'node:os';
import type { NamedSecret } from '../domain/jobs/redact-secrets.js';
import type { Env } from './config.js';

/**
 * The whole environment of command actions, read once at start-up: PATH, HOME and LANG from the
 * service's environment or sane defaults, TZ when the service has one (otherwise the system's
 * zone applies, as for the service), and the variables COMMAND_ENV names that are set.
 * Nothing else — no service secret, no DATABASE_URL — reaches a command.
 */
export const commandEnvironment = (env: Env, names: readonly string[]): Record<string, string> => {
  const result: Record<string, string> = {
    PATH: env.PATH || '/usr/local/bin:/usr/bin:/bin',
    HOME: env.HOME || homedir(),
    LANG: env.LANG || 'C.UTF-8',
  };
  if (env.TZ) result.TZ = env.TZ;
  for (const name of names) {
    const value = env[name];
    if (value !== undefined) result[name] = value.replace(/\0/g, '');
  }
  return result;
};

/**
 * The values of the variables COMMAND_ENV names that are set, as secrets redacted from the output
 * of commands before it is recorded: an operator passes commands what they need, credentials
 * among it, and a command that prints one must not leave it on the run page.
 */
export const commandEnvSecrets = (env: Env, names: readonly string[]): NamedSecret[] =>
  names.flatMap((name) => {
    const value = env[name]?.replace(/\0/g, '');
    return value === undefined || value.trim() === '' ? [] : [{ name, value }];
  });
