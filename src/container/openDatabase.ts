import { Database } from '../adapters/persistence/Database.js';
import type { OpenEngine } from '../adapters/persistence/openEngine.js';
import type { Logger } from '../ports/Logger.js';
import type { AppConfig } from './config.js';
import { explainDatabaseFailure } from './explainDatabaseFailure.js';

/**
 * Opens the configured database (on `engine`, when its opening was started earlier); a
 * database that cannot be opened rejects with a StartupError naming the setting.
 */
export const openDatabase = async (config: AppConfig, logger: Logger, engine?: Promise<OpenEngine>): Promise<Database> => {
  try {
    return await Database.open({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, logger, create: config.databaseCreate }, engine);
  } catch (error) {
    throw explainDatabaseFailure(error);
  }
};
