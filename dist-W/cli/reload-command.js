import { databaseOfCommand } from './command-context.js';
import { connectToServer, withOpenDatabase } from './database-access.js';
const report = (problems, io) => {
    for (const problem of problems)
        io.err.write(`${problem}\n`);
    io.err.write(`${problems.length} problem${problems.length === 1 ? '' : 's'} found; the running triggers and schedules are kept\n`);
    return 1;
};
/**
 * `reload`: has the running service reload TRIGGERS_FILE and CRONS_FILE. On the embedded
 * database the server holding it reloads through its admin socket and answers with its
 * problems. On PostgreSQL the files are checked here first, then every replica is asked with
 * NOTIFY agw_reload (each reloads its own files and logs the outcome). Exit code 1 with every
 * problem when a file is invalid.
 */
export const reload = async (_parsed, io) => {
    const { config, target } = await databaseOfCommand(io);
    if (target.kind === 'server') {
        const outcome = await (await connectToServer(target, io)).reload();
        if (!outcome.ok)
            return report(outcome.problems, io);
        io.out.write(`reloaded by the running server (pid ${target.pid}): ${outcome.triggers} triggers, ${outcome.schedules} schedules\n`);
        return 0;
    }
    const { readConfigFiles } = await import('../container/config-files.js');
    const { EnvironmentSecretStore } = await import('../adapters/secrets/environment-secret-store.js');
    const { AI_PROVIDERS } = await import('../adapters/ai/ai-providers.js');
    const files = await readConfigFiles(config, new EnvironmentSecretStore(process.env, AI_PROVIDERS));
    if (files.problems.length > 0)
        return report(files.problems, io);
    if (target.kind === 'embedded') {
        io.out.write(`no server is running on ${target.dataDir}; the files are valid (${files.triggers.length} triggers, ${files.schedules.length} schedules)\n`);
        return 0;
    }
    const { RELOAD_CHANNEL } = await import('../container/reload-channel.js');
    await withOpenDatabase(config, target, io, ({ database }) => database.notify(RELOAD_CHANNEL));
    io.out.write(`the files are valid (${files.triggers.length} triggers, ${files.schedules.length} schedules); every server on this database was asked to reload\n`);
    return 0;
};
//# sourceMappingURL=reload-command.js.map