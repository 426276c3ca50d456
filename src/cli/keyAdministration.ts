import type { Logger as Pino } from 'pino';
import type { KeyAdministration } from '../application/ApiKeyAdministration.js';
import { AdminSocketClient } from '../adapters/http/adminSocket/AdminSocketClient.js';
import { adminSocketPath } from '../adapters/http/adminSocket/adminSocketPath.js';
import { PinoLogger } from '../adapters/logging/PinoLogger.js';
import type { Database } from '../adapters/persistence/Database.js';
import { EmbeddedLock } from '../adapters/persistence/EmbeddedLock.js';
import { buildContainer } from '../container/buildContainer.js';
import type { AppConfig } from '../container/config.js';
import { openDatabase } from '../container/openDatabase.js';
import { TOKENS } from '../container/tokens.js';

/**
 * Runs `work` with key administration wherever the keys are:
 * - PostgreSQL: directly on the database (a running server sees changes at once through notifications);
 * - embedded database held by a running server: through that server's admin socket;
 * - embedded database not in use: directly on it.
 */
export const withKeyAdministration = async <T>(
  config: AppConfig,
  pino: Pino,
  work: (admin: KeyAdministration) => Promise<T>,
): Promise<T> => {
  if (config.databaseUrl === undefined) {
    const holder = await new EmbeddedLock(config.dataDir).holder();
    if (holder !== null) {
      const client = new AdminSocketClient(adminSocketPath(config.dataDir));
      if (!(await client.reachable())) {
        throw new Error(
          `The server (process ${holder}) holds the embedded database in ${config.dataDir} but its admin socket does not answer`,
        );
      }
      return work(client);
    }
  }
  return withOpenDatabase(config, pino, async (database) => {
    const container = buildContainer(config, { pino, database, env: process.env });
    try {
      return await work(await container.getAsync(TOKENS.KeyAdministration));
    } finally {
      await container.unbindAllAsync();
    }
  });
};

/** Opens the configured database, applies pending migrations, runs `work`, closes it. */
export const withOpenDatabase = async <T>(config: AppConfig, pino: Pino, work: (database: Database) => Promise<T>): Promise<T> => {
  const database = await openDatabase(config, new PinoLogger(pino));
  try {
    await database.migrate();
    return await work(database);
  } finally {
    await database.close();
  }
};
