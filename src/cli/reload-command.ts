import type { CliIo } from './cli-io.js';
import type { ParsedCommand } from './command-line.js';
import { databaseOfCommand } from './command-context.js';
import { countOf, withOpenDatabase } from './database-access.js';
import { noServerMeanwhile, onDatabase } from './on-database.js';
import { terminalField } from './terminal-text.js';

/**
 * `running`: a server holds triggers and schedules that the problems leave as they are. A problem
 * quotes the files (a name, a field): printed through terminalField, one line each.
 */
const report = (problems: readonly string[], io: CliIo, running = true): number => {
  for (const problem of problems) io.err.write(`${terminalField(problem)}\n`);
  io.err.write(`${countOf(problems.length, 'problem')} found${running ? '; the running triggers and schedules are kept' : ''}\n`);
  return 1;
};
const counts = (triggers: number, schedules: number): string => `${countOf(triggers, 'trigger')}, ${countOf(schedules, 'schedule')}`;

/**
 * `reload`: has the running service reload TRIGGERS_FILE and CRONS_FILE. On the embedded
 * database the server holding it reloads through its admin socket and answers with its
 * problems. On PostgreSQL the files are checked here first, then every replica is asked with
 * NOTIFY agw_reload (each reloads its own files and logs the outcome). Exit code 1 with every
 * problem when a file is invalid. On the embedded database no server holds, the files are checked
 * here, and a server that took the database meanwhile (it may have read the files before they
 * changed) is asked to reload instead (onDatabase, noServerMeanwhile).
 */
export const reload = async (_parsed: ParsedCommand, io: CliIo): Promise<number> => {
  const { config, target } = await databaseOfCommand(io);
  return onDatabase(io, target, {
    server: async (client, server) => {
      const outcome = await client.reload();
      if (!outcome.ok) return report(outcome.problems, io);
      io.out.write(`reloaded by the running server (pid ${server.pid}): ${counts(outcome.triggers, outcome.schedules)}\n`);
      return 0;
    },
    direct: async (direct) => {
      const { readConfigFiles } = await import('../container/config-files.js');
      const { EnvironmentSecretStore } = await import('../adapters/secrets/environment-secret-store.js');
      const { AI_PROVIDERS } = await import('../adapters/ai/ai-providers.js');
      const files = await readConfigFiles(config, new EnvironmentSecretStore(process.env, AI_PROVIDERS));
      // Before anything is said: a server that started since the command looked is asked instead.
      await noServerMeanwhile(direct);
      // No server runs on the embedded database here: nothing is running to be kept.
      if (files.problems.length > 0) return report(files.problems, io, direct.kind !== 'embedded');
      if (direct.kind === 'embedded') {
        io.out.write(
          `no server is running on ${terminalField(direct.dataDir)}; the files are valid (${counts(files.triggers.length, files.schedules.length)})\n`,
        );
        return 0;
      }
      // A missing file is "none" for a server that runs none of its entries, and refused by one that
      // runs some (ConfigReloader): this command cannot tell which, so it says so.
      for (const [variable, file, missing, what] of [
        ['TRIGGERS_FILE', config.triggersFile, files.triggersMissing, 'triggers'],
        ['CRONS_FILE', config.cronsFile, files.schedulesMissing, 'schedules'],
      ] as const) {
        if (missing)
          io.err.write(
            `warning: ${variable}: ${terminalField(file)} does not exist; a server running ${what} keeps them and refuses that file's reload (write [] to remove them all)\n`,
          );
      }
      const { RELOAD_CHANNEL } = await import('../container/reload-channel.js');
      await withOpenDatabase(config, direct, io, ({ database }) => database.notify(RELOAD_CHANNEL));
      io.out.write(`the files are valid (${counts(files.triggers.length, files.schedules.length)}); every server on this database was asked to reload\n`);
      return 0;
    },
  });
};
