import { resolve } from 'node:path';
import type { CliIo } from './cli-io.js';
import type { ParsedCommand } from './command-line.js';
import { readConfig } from './command-context.js';
import { hasSettingsProblems, SETTINGS_NOTE, writeProblems } from './settings-note.js';
import { countOf } from './database-access.js';
import { terminalField } from './terminal-text.js';
import { describeInZone, zonedIso } from './zoned-time.js';

/** One schedule as `crons check --json` prints it. */
interface CheckedSchedule {
  readonly name: string;
  readonly enabled: boolean;
  readonly schedule: string;
  /** As the file gives it; null when absent (read in UTC). */
  readonly timezone: string | null;
  /** The zone the expression is read in: `timezone`, else UTC. */
  readonly zone: string;
  readonly catch_up: boolean;
  readonly actions: readonly string[];
  /** The next run as the scheduler runs it, ISO 8601 in UTC; null when disabled or none will come. */
  readonly next: string | null;
  /** The same instant with the zone's offset (`2026-12-02T09:00:00+01:00`); null likewise. */
  readonly next_local: string | null;
}

/**
 * `crons check [--file F] [--json]`: the start-up validation of the schedule file, without starting
 * anything: the file itself, each enabled agent action's provider secret and jobs, TRIGGERS_DIR
 * when a command action runs there, and that no trigger of TRIGGERS_FILE is named as a schedule's
 * runs are recorded (`cron:<name>`). A file named with --file must exist; the configured one
 * may not (the service then runs with no schedules). Each schedule's next run is the one the
 * scheduler runs (nextScheduledRun: its daylight-saving handling, UTC for a schedule without
 * `timezone` whatever this process's TZ), shown in the schedule's zone and in UTC. Every value
 * from the file or the environment is printed through terminalField: a name cannot drive the
 * terminal or forge a row. `now`: the moment the next runs are found from (tests give one).
 */
export const checkCrons = async ({ values }: ParsedCommand, io: CliIo, now: () => Date = () => new Date()): Promise<number> => {
  const config = await readConfig();
  const [
    { checkScheduleFile, checkTriggerFile, commandScriptWarnings, runNameProblems },
    { EnvironmentSecretStore },
    { AI_PROVIDERS },
    { shownPath },
    { CronParserCronCalendar },
    { nextScheduledRun },
    { scheduleZone },
    { zonelessWarning },
  ] = await Promise.all([
    import('../container/config-files.js'),
    import('../adapters/secrets/environment-secret-store.js'),
    import('../adapters/ai/ai-providers.js'),
    import('../adapters/triggerfile/shown-path.js'),
    import('../adapters/schedule/cron-parser-cron-calendar.js'),
    import('../application/schedules/scheduled-run.js'),
    import('../domain/schedules/schedule.js'),
    import('../container/zoneless-schedules.js'),
  ]);
  const json = values.json === true;
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
    writeProblems(io, problems);
    if (!checked.missing && hasSettingsProblems(problems, (await checkScheduleFile(file, config.triggersDir)).problems)) io.err.write(`${SETTINGS_NOTE}\n`);
    return 1;
  }
  // Start-up refuses a trigger of TRIGGERS_FILE named as a schedule's runs are (cron:<name>) beside that schedule.
  const clashes = runNameProblems(await checkTriggerFile(config.triggersFile, config.triggersDir), checked, config.triggersFile, file);
  if (clashes.length > 0) {
    writeProblems(io, clashes);
    return 1;
  }
  // With --json, stdout holds the JSON alone: what is said besides goes to stderr.
  const said = json ? io.err : io.out;
  if (checked.missing) {
    said.write(`${terminalField(shownPath(file))} does not exist: the service runs with no schedules (CRONS_FILE)\n`);
    if (json) io.out.write('[]\n');
    return 0;
  }
  const schedules = checked.entries;
  const enabled = schedules.filter((s) => s.enabled).length;
  said.write(`${terminalField(shownPath(file))}: ${countOf(schedules.length, 'schedule')} valid (${enabled} enabled)\n`);
  const calendar = new CronParserCronCalendar(now);
  const from = now();
  const listed: CheckedSchedule[] = schedules.map((schedule) => {
    const zone = scheduleZone(schedule);
    const next = schedule.enabled ? nextScheduledRun(calendar, schedule, from) : null;
    return {
      name: schedule.name,
      enabled: schedule.enabled,
      schedule: schedule.schedule,
      timezone: schedule.timezone ?? null,
      zone,
      catch_up: schedule.catchUp,
      actions: schedule.actions.map((a) => a.type),
      next: next?.toISOString() ?? null,
      next_local: next === null ? null : zonedIso(next, zone),
    };
  });
  if (json) io.out.write(`${JSON.stringify(listed)}\n`);
  else
    for (const entry of listed) {
      const next = entry.next === null ? null : describeInZone(new Date(entry.next), entry.zone);
      io.out.write(
        `  ${entry.enabled ? 'on ' : 'off'}  ${terminalField(entry.name)}  ${terminalField(entry.schedule)}${entry.timezone ? ` (${terminalField(entry.timezone)})` : ''}  ${entry.actions.join(' → ')}${next ? `  next ${terminalField(next)}` : ''}\n`,
      );
    }
  // Warnings (stderr, exit code 0): a command whose script is missing in TRIGGERS_DIR or not
  // executable; schedules without a zone while this shell's is not UTC (they run in UTC).
  const warnings = [...commandScriptWarnings(schedules, config.triggersDir, file, 'schedule'), ...[zonelessWarning(schedules)].filter((w) => w !== null)];
  for (const warning of warnings) io.err.write(`warning: ${terminalField(warning)}\n`);
  return 0;
};
