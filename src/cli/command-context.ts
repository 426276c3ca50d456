import type { AppConfig } from '../container/config.js';
import type { CliIo } from './cli-io.js';
import { describeTarget, findDatabaseTarget, type DatabaseTarget } from './database-target.js';
import { terminalField } from './terminal-text.js';

/** The configuration, as the service reads it (environment, then `.env` in the working directory). */
export const readConfig = async (): Promise<AppConfig> => (await import('../container/environment.js')).configFromEnvironment();

/**
 * The configuration and the database it names, said on stderr before anything is done there
 * (`using PostgreSQL at host:port/db`, `using the embedded database in …`): a command never
 * works on a database the user did not expect without saying so.
 */
export const databaseOfCommand = async (io: CliIo): Promise<{ readonly config: AppConfig; readonly target: DatabaseTarget }> => {
  const config = await readConfig();
  const target = await findDatabaseTarget(config);
  // DATA_DIR, DATABASE_URL's host and name as the environment gave them: escaped, they cannot forge a line.
  io.err.write(`${terminalField(describeTarget(target))}\n`);
  await io.afterLook?.(target);
  return { config, target };
};
