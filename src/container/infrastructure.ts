import type { Logger as Pino } from 'pino';
import type { Database } from '../adapters/persistence/database.js';
import type { Schedule } from '../domain/schedules/schedule.js';
import type { Trigger } from '../domain/triggers/trigger.js';

/** What must exist before the container: opened asynchronously by the caller. */
export interface Infrastructure {
  readonly pino: Pino;
  readonly database: Database;
  /** Where provider secrets are read from (the process environment in production). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The validated trigger file; none for the CLI. */
  readonly triggers?: readonly Trigger[];
  /** The validated schedule file; none for the CLI. */
  readonly schedules?: readonly Schedule[];
}
