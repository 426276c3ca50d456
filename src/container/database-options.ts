import type { DatabaseOptions } from '../adapters/persistence/open-engine.js';
import type { Logger } from '../ports/logger.js';
import type { AppConfig } from './config.js';
import { stopForRestart } from './stop-for-restart.js';

/**
 * The service's database options, from its configuration: the same for starting the engine
 * (beginStart, head-start.ts) and for opening the database on it (openDatabase), whose pools
 * read them too. A light module: head-start.ts loads it before the rest of the service.
 */
export const serviceDatabaseOptions = (config: AppConfig, logger: Logger): DatabaseOptions => ({
  databaseUrl: config.databaseUrl,
  dataDir: config.dataDir,
  logger,
  create: config.databaseCreate,
  onEngineFailure: stopForRestart,
  timeouts: config.databaseTimeouts,
});
