import { resolve } from 'node:path';
import type { CliIo } from './cli-io.js';
import type { ParsedCommand } from './command-line.js';
import { readConfig } from './command-context.js';
import { countOf } from './database-access.js';
import { terminalField } from './terminal-text.js';

/**
 * `crons check [--file F]`: the start-up validation of the schedule file, without starting
 * anything: the file itself, each enabled agent action's provider secret and jobs, and TRIGGERS_DIR
 * when a command action runs there. A file named with --file must exist; the configured one
 * may not (the service then runs with no schedules). Every value from the file or the
 * environment is printed through terminalField: a name cannot drive the terminal or forge a row.
 */
export const checkCrons = async ({ values }: ParsedCommand, io: CliIo): Promise<number> => {
  const config = await readConfig();
  const [{ checkScheduleFile, commandScriptWarnings }, { EnvironmentSecretStore }, { AI_PROVIDERS }, { shownPath }, { CronParserCronCalendar }] =
    await Promise.all([
      import('../container/config-files.js'),
      import('../adapters/secrets/environment-secret-store.js'),
      import('../adapters/ai/ai-providers.js'),
      import('../adapters/triggerfile/shown-path.js'),
      import('../adapters/schedule/cron-parser-cron-calendar.js'),
    ]);
  const given = typeof values.file === 'string';
  const file = given ? resolve(values.file as string) : config.cronsFile;
  const checked = await checkScheduleFile(
    file,
    config.triggersDir,
    new EnvironmentSecretStore(process.env, AI_PROVIDERS),
    (await import('../container/jobs-availability.js')).jobsUnavailableReason(config),
  );
  const problems = checked.missing && given ? [`${shownPath(file)}: does not exist`] : checked.problems;
  if (problems.length > 0) {
    for (const problem of problems) io.err.write(`${terminalField(problem)}\n`);
    io.err.write(`${countOf(problems.length, 'problem')} found\n`);
    return 1;
  }
  if (checked.missing) {
    io.out.write(`${terminalField(shownPath(file))} does not exist: the service runs with no schedules (CRONS_FILE)\n`);
    return 0;
  }
  const schedules = checked.entries;
  const enabled = schedules.filter((s) => s.enabled).length;
  io.out.write(`${terminalField(shownPath(file))}: ${countOf(schedules.length, 'schedule')} valid (${enabled} enabled)\n`);
  const calendar = new CronParserCronCalendar();
  const now = new Date();
  for (const schedule of schedules) {
    const next = schedule.enabled ? calendar.next(schedule.schedule, schedule.timezone, now) : null;
    io.out.write(
      `  ${schedule.enabled ? 'on ' : 'off'}  ${terminalField(schedule.name)}  ${terminalField(schedule.schedule)}${schedule.timezone ? ` (${terminalField(schedule.timezone)})` : ''}  ${schedule.actions.map((a) => a.type).join(' → ')}${next ? `  next ${next.toISOString()}` : ''}\n`,
    );
  }
  // Warnings (stderr, exit code 0): a command whose script is missing in TRIGGERS_DIR or not executable.
  for (const warning of commandScriptWarnings(schedules, config.triggersDir, file, 'schedule')) io.err.write(`warning: ${terminalField(warning)}\n`);
  return 0;
};
