import { copyTree, emptyPgliteDir, sharedOnce } from './data-dirs.js';
import { join } from 'node:path';
import { PinoLogger, createPino } from '../../src/adapters/logging/pino-logger.js';
import { Database } from '../../src/adapters/persistence/database.js';
import { processTempDir, tempDir } from './gateway-process.js';
import { createScratchDatabase } from './postgres.js';

const logger = new PinoLogger(createPino('silent'));

export type Engine = 'pglite' | 'postgresql';

/** A migrated database for one suite, opened as the service opens it (PGlite on its own thread). */
export interface TestDatabase {
  readonly database: Database;
  /**
   * Another handle on the same database: on PostgreSQL a second pool (another replica); on
   * PGlite, which one process holds, the same handle.
   */
  readonly replica: Database;
  close(): Promise<void>;
}

let migratedTemplate: Promise<string> | undefined;

/**
 * A data directory holding a migrated embedded database of its own: a copy of one migrated once
 * per test run (sharedOnce; once per test process outside the configured run). The template
 * starts from a copy of the empty cluster (emptyPgliteDir), so that only the migrations run:
 * each mocha worker created a cluster (~11 s of CPU on the 2-core machine) and migrated it.
 */
export const migratedPgliteDataDir = async (name: string): Promise<string> => {
  migratedTemplate ??= sharedOnce('template-migrated', async () => {
    const dir = await processTempDir('template-migrated');
    await copyTree(await emptyPgliteDir('template-migrated-cluster'), join(dir, 'pglite'));
    const database = await Database.open({ databaseUrl: undefined, dataDir: dir, logger });
    try {
      await database.migrate();
    } finally {
      await database.close();
    }
    return dir;
  });
  let source: string;
  try {
    source = await migratedTemplate;
  } catch (error) {
    migratedTemplate = undefined;
    throw error;
  }
  const dataDir = await tempDir(name);
  await copyTree(join(source, 'pglite'), join(dataDir, 'pglite'));
  return dataDir;
};

/**
 * The DATA_DIR for a Database opened on `databaseUrl`: a copy of the migrated embedded database
 * when there is none (PGlite), else an unused temporary directory (PostgreSQL holds the data).
 */
export const dataDirFor = async (databaseUrl: string | undefined, name: string): Promise<string> =>
  databaseUrl === undefined ? migratedPgliteDataDir(name) : tempDir(name);

/** Opens and migrates a fresh database: a temporary PGlite directory (a copy of one migrated once), or a scratch PostgreSQL database. */
export const openTestDatabase = async (engine: Engine, name: string): Promise<TestDatabase> => {
  if (engine === 'pglite') {
    const database = await Database.open({ databaseUrl: undefined, dataDir: await migratedPgliteDataDir(name), logger });
    // Nothing left to apply; kept so that a test database is always at the latest migration.
    await database.migrate();
    return { database, replica: database, close: () => database.close() };
  }
  const scratch = await createScratchDatabase();
  const database = await Database.open({ databaseUrl: scratch.url, dataDir: await tempDir(name), logger });
  let replica: Database | undefined;
  try {
    await database.migrate();
    replica = await Database.open({ databaseUrl: scratch.url, dataDir: await tempDir(name), logger });
  } catch (error) {
    await database.close();
    await scratch.drop();
    throw error;
  }
  return {
    database,
    replica,
    close: async () => {
      await replica.close();
      await database.close();
      await scratch.drop();
    },
  };
};

/**
 * Runs SQL with positional `?` parameters on the database's ORM connection: for tests that set
 * up or inspect rows behind an adapter's back (the adapters themselves go through the ORM).
 */
export const sql = async <T = Record<string, unknown>>(database: Database, text: string, params: unknown[] = []): Promise<T[]> =>
  (await database.orm.em.getConnection().execute(text, params)) as T[];
