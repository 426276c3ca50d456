import { resolve } from 'node:path';
import { readConfig } from './command-context.js';
const plural = (count, noun) => `${count} ${noun}${count === 1 ? '' : 's'}`;
/** `crons check [--file F]`: the start-up validation of the schedule file, without starting anything. */
export const checkCrons = async ({ values }, io) => {
    const config = await readConfig();
    const { loadScheduleFile } = await import('../adapters/triggerfile/json-schedule-file.js');
    const { EnvironmentSecretStore } = await import('../adapters/secrets/environment-secret-store.js');
    const { checkTriggerSecrets } = await import('../application/triggers/check-trigger-secrets.js');
    const { scheduleCatalog } = await import('../container/schedule-catalog.js');
    const { AI_PROVIDERS } = await import('../adapters/ai/ai-providers.js');
    const { CronParserCronCalendar } = await import('../adapters/schedule/cron-parser-cron-calendar.js');
    const file = typeof values.file === 'string' ? resolve(values.file) : config.cronsFile;
    const loaded = await loadScheduleFile(file, scheduleCatalog());
    const problems = loaded.problems.length > 0
        ? loaded.problems
        : checkTriggerSecrets(loaded.schedules, new EnvironmentSecretStore(process.env, AI_PROVIDERS), file, 'schedule');
    if (problems.length > 0) {
        for (const problem of problems)
            io.err.write(`${problem}\n`);
        io.err.write(`${plural(problems.length, 'problem')} found\n`);
        return 1;
    }
    if (loaded.missing) {
        io.out.write(`${file} does not exist: the service runs with no schedules\n`);
        return 0;
    }
    const enabled = loaded.schedules.filter((s) => s.enabled).length;
    io.out.write(`${file}: ${plural(loaded.schedules.length, 'schedule')} valid (${enabled} enabled)\n`);
    const calendar = new CronParserCronCalendar();
    const now = new Date();
    for (const schedule of loaded.schedules) {
        const next = schedule.enabled ? calendar.next(schedule.schedule, schedule.timezone, now) : null;
        io.out.write(`  ${schedule.enabled ? 'on ' : 'off'}  ${schedule.name}  ${schedule.schedule}${schedule.timezone ? ` (${schedule.timezone})` : ''}  ${schedule.actions.map((a) => a.type).join(' → ')}${next ? `  next ${next.toISOString()}` : ''}\n`);
    }
    return 0;
};
//# sourceMappingURL=crons-command.js.map