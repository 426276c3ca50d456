import { resolve } from 'node:path';
import type { CliIo } from './cli-io.js';
import type { ParsedCommand } from './command-line.js';
import { readConfig } from './command-context.js';
import { hasSettingsProblems, SETTINGS_NOTE, writeProblems } from './settings-note.js';
import { countOf } from './database-access.js';
import { terminalField } from './terminal-text.js';

/**
 * `triggers check [--file F]`: the start-up validation of the trigger file, without starting
 * anything: the file itself, each enabled agent action's provider secret and jobs, and TRIGGERS_DIR
 * when a command action runs there, and that no trigger is named as the runs of a schedule of
 * CRONS_FILE are recorded (`cron:<name>`). A file named with --file must exist; the configured one
 * may not (the service then runs with no triggers). Warnings (stderr, exit code 0): an enabled
 * trigger on a chat endpoint open to every chat, a trigger reading a header no trigger ever sees
 * (a credential), a command whose script (a relative path) is missing in TRIGGERS_DIR or not
 * executable (it may be deployed after the file). Every value from the file or the environment is printed through
 * terminalField: a name cannot drive the terminal or forge a row.
 */
export const checkTriggers = async ({ values }: ParsedCommand, io: CliIo): Promise<number> => {
  const config = await readConfig();
  const [{ checkTriggerFile, checkScheduleFile, commandScriptWarnings, runNameProblems }, { EnvironmentSecretStore }, { AI_PROVIDERS }, { shownPath }] =
    await Promise.all([
      import('../container/config-files.js'),
      import('../adapters/secrets/environment-secret-store.js'),
      import('../adapters/ai/ai-providers.js'),
      import('../adapters/triggerfile/shown-path.js'),
    ]);
  const given = typeof values.file === 'string';
  const file = given ? resolve(values.file as string) : config.triggersFile;
  const checked = await checkTriggerFile(
    file,
    config.triggersDir,
    new EnvironmentSecretStore(process.env, AI_PROVIDERS),
    (await import('../container/jobs-availability.js')).jobsUnavailableReason(config),
  );
  const problems = checked.missing && given ? [`${shownPath(file)}: does not exist`] : checked.problems;
  if (problems.length > 0) {
    writeProblems(io, problems);
    if (!checked.missing && hasSettingsProblems(problems, (await checkTriggerFile(file, config.triggersDir)).problems)) io.err.write(`${SETTINGS_NOTE}\n`);
    return 1;
  }
  // Start-up refuses a trigger named as a schedule's runs are (cron:<name>) beside that schedule of CRONS_FILE.
  const clashes = runNameProblems(checked, await checkScheduleFile(config.cronsFile, config.triggersDir), file, config.cronsFile);
  if (clashes.length > 0) {
    writeProblems(io, clashes);
    return 1;
  }
  if (checked.missing) {
    io.out.write(`${terminalField(shownPath(file))} does not exist: the service runs with no triggers (TRIGGERS_FILE)\n`);
    return 0;
  }
  const enabled = checked.entries.filter((t) => t.enabled).length;
  io.out.write(`${terminalField(shownPath(file))}: ${countOf(checked.entries.length, 'trigger')} valid (${enabled} enabled)\n`);
  for (const trigger of checked.entries) {
    io.out.write(
      `  ${trigger.enabled ? 'on ' : 'off'}  ${terminalField(trigger.name)}  ${terminalField(trigger.watchPath)}  ${trigger.actions.map((a) => a.type).join(' → ')}\n`,
    );
  }
  const [{ chatTriggerWarnings }, { withheldHeaderWarnings }, { channelCredentialHeaders, chatIdFieldsByWatchPath }, { codehostTriggerWarnings }] =
    await Promise.all([
      import('../domain/triggers/chat-trigger-warnings.js'),
      import('../domain/triggers/withheld-header-warnings.js'),
      import('../container/channels/index.js'),
      import('../domain/triggers/codehost-trigger-warnings.js'),
    ]);
  for (const warning of chatTriggerWarnings(checked.entries, chatIdFieldsByWatchPath())) io.err.write(`warning: ${terminalField(warning)}\n`);
  for (const warning of codehostTriggerWarnings(checked.entries)) io.err.write(`warning: ${terminalField(warning)}\n`);
  for (const warning of commandScriptWarnings(checked.entries, config.triggersDir, file, 'trigger')) io.err.write(`warning: ${terminalField(warning)}\n`);
  for (const { message } of withheldHeaderWarnings(checked.entries, shownPath(file), channelCredentialHeaders()))
    io.err.write(`warning: ${terminalField(message)}\n`);
  return 0;
};
