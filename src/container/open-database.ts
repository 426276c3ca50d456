import { Database } from '../adapters/persistence/database.js';
import type { OpenEngine } from '../adapters/persistence/open-engine.js';
import type { Logger } from '../ports/logger.js';
import type { AppConfig } from './config.js';
import { serviceDatabaseOptions } from './database-options.js';
import { explainDatabaseFailure } from './explain-database-failure.js';

/**
 * Opens the configured database (on `engine`, when its opening was started earlier); a
 * database that cannot be opened rejects with a StartupError naming the setting.
 */
export const openDatabase = async (config: AppConfig, logger: Logger, engine?: Promise<OpenEngine>): Promise<Database> => {
  try {
    return await Database.open(serviceDatabaseOptions(config, logger), engine);
  } catch (error) {
    throw explainDatabaseFailure(error);
  }
};
