import type { HttpServer } from '../adapters/http/http-server.js';
import { startEngine, type OpenEngine } from '../adapters/persistence/open-engine.js';
import type { Schedule } from '../domain/schedules/schedule.js';
import type { Trigger } from '../domain/triggers/trigger.js';
import type { Logger } from '../ports/logger.js';
import type { Logger as Pino } from 'pino';
import type { EarlyIntakeStart } from './early-intake-start.js';
import type { AppConfig } from './config.js';
import { serviceDatabaseOptions } from './database-options.js';
import { explainDatabaseFailure } from './explain-database-failure.js';
import { listenHttp } from './listen-http.js';
import { checkJobSandbox, loadStartFiles } from './load-start-files.js';

/**
 * What the service's entry does before it loads the rest of the service (about a second of
 * module loading): it checks the trigger and schedule files (and the chat's prompt file, the
 * agent actions' provider secrets), binds the HTTP port, checks the job sandbox and starts opening the
 * database, so that a bad file, a port in use or a database that cannot be reached ends
 * start-up at once, and PGlite boots on its own thread while the main thread loads. Whatever
 * the files and the environment alone decide is checked before the early intake answers
 * anything: a start that such a setting fails answers no request `200`.
 * Imports nothing heavy. Gateway.start takes it over, closing both if start-up fails.
 */
export interface HeadStart {
  /** The trigger file, validated (checked before anything is opened). */
  readonly triggers: readonly Trigger[];
  /** The schedule file, validated (checked before anything is opened). */
  readonly schedules: readonly Schedule[];
  readonly http: HttpServer;
  /** The embedded database's boot, still under way; rejects as openEngine does. */
  readonly engine: Promise<OpenEngine>;
  /** Requests taken in while the embedded database opens (early-intake-start.ts); none on PostgreSQL or without a key snapshot. */
  readonly early?: EarlyIntakeStart;
}

export const beginStart = async (config: AppConfig, logger: Logger, pino?: Pino): Promise<HeadStart> => {
  const { triggers, schedules } = await loadStartFiles(config, logger);
  const http = await listenHttp(config);
  try {
    await checkJobSandbox(config);
    // What fails fast (a PostgreSQL server that refuses, a data directory that cannot be
    // locked) is awaited here, so that it stops start-up before the rest is loaded.
    const { opened } = await startEngine(serviceDatabaseOptions(config, logger));
    // Awaited by Gateway.start; until then a rejection is not unhandled.
    opened.catch(() => undefined);
    // The embedded database's lock is held now: its journal is this process's.
    // Loaded only here: PostgreSQL opens in a tenth of a second and has no early intake.
    const early =
      config.databaseUrl === undefined && pino !== undefined
        ? await import('./early-intake-start.js')
            .then(({ startEarlyIntake }) => startEarlyIntake(config, triggers, http, pino, logger))
            .catch((error: unknown) => {
              logger.warn({ err: error }, 'requests wait for the database while it opens: the early intake could not start');
              return undefined;
            })
        : undefined;
    return { triggers, schedules, http, engine: opened, ...(early === undefined ? {} : { early }) };
  } catch (error) {
    await http.close(0);
    throw explainDatabaseFailure(error);
  }
};
