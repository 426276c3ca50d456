import { databaseOfCommand } from './command-context.js';
import { connectToServer, countOf, withOpenDatabase } from './database-access.js';
import { CliFailure } from './usage-error.js';
/** `Applied 5 migrations: a, b, …` (what was applied) or `Database is up to date` (nothing was). */
export const migrationMessage = (applied, by = '') => applied.length === 0 ? 'Database is up to date' : `Applied ${countOf(applied.length, 'migration')}: ${applied.join(', ')}${by}`;
/**
 * `migrate`: applies pending migrations and says which. While a server holds the embedded
 * database, that server has applied them at its start: its account is reported (what it
 * applied then), after checking that the database records every migration this CLI knows —
 * a CLI newer than the running server finds some missing and says to restart the server.
 */
export const migrate = async (_parsed, io) => {
    const { config, target } = await databaseOfCommand(io);
    if (target.kind !== 'server') {
        const applied = await withOpenDatabase(config, target, io, async (opened) => opened.applied);
        io.out.write(`${migrationMessage(applied)}\n`);
        return 0;
    }
    const report = await (await connectToServer(target, io)).migrations();
    const { MIGRATIONS } = await import('../adapters/persistence/migrations/index.js');
    const recorded = new Set(report.recorded);
    const missing = MIGRATIONS.map((migration) => migration.name).filter((name) => !recorded.has(name));
    if (missing.length > 0) {
        throw new CliFailure(`The running server (pid ${target.pid}) has not applied ${countOf(missing.length, 'migration')} of this version: ${missing.join(', ')}; restart it with this version to apply them`);
    }
    io.out.write(`${migrationMessage(report.appliedAtStart, ` (by the running server, pid ${target.pid}, at its start)`)}\n`);
    return 0;
};
//# sourceMappingURL=migrate-command.js.map