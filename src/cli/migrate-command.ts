import type { CliIo } from './cli-io.js';
import type { ParsedCommand } from './command-line.js';
import { databaseOfCommand } from './command-context.js';
import { countOf, withOpenDatabase } from './database-access.js';
import { onDatabase } from './on-database.js';
import { CliFailure } from './usage-error.js';

/** `Applied 5 migrations: a, b, …` (what was applied) or `Database is up to date` (nothing was). */
export const migrationMessage = (applied: readonly string[], by = ''): string =>
  applied.length === 0 ? 'Database is up to date' : `Applied ${countOf(applied.length, 'migration')}: ${applied.join(', ')}${by}`;

/**
 * `migrate`: applies pending migrations and says which. While a server holds the embedded
 * database, that server has applied them at its start: its account is reported (what it
 * applied then), after checking that the database records every migration this CLI knows —
 * a CLI newer than the running server finds some missing and says to restart the server.
 */
export const migrate = async (_parsed: ParsedCommand, io: CliIo): Promise<number> => {
  const { config, target } = await databaseOfCommand(io);
  const message = await onDatabase(io, target, {
    direct: async (direct) => migrationMessage(await withOpenDatabase(config, direct, io, async (opened) => opened.applied)),
    server: async (client, server) => {
      const report = await client.migrations();
      const { MIGRATIONS } = await import('../adapters/persistence/migrations/index.js');
      const recorded = new Set(report.recorded);
      const missing = MIGRATIONS.map((migration) => migration.name).filter((name) => !recorded.has(name));
      if (missing.length > 0) {
        throw new CliFailure(
          `The running server (pid ${server.pid}) has not applied ${countOf(missing.length, 'migration')} of this version: ${missing.join(', ')}; restart it with this version to apply them`,
        );
      }
      return migrationMessage(report.appliedAtStart, ` (by the running server, pid ${server.pid}, at its start)`);
    },
  });
  io.out.write(`${message}\n`);
  return 0;
};
