import { MikroOrmScheduleRunRepository } from '../../adapters/persistence/mikro-orm-schedule-run-repository.js';
import { CronParserCronCalendar } from '../../adapters/schedule/cron-parser-cron-calendar.js';
import { NodeTimer } from '../../adapters/system/node-timer.js';
import { RunSchedule } from '../../application/schedules/run-schedule.js';
import { Scheduler } from '../../application/schedules/scheduler.js';
import { ConfigReloader } from '../config-reloader.js';
import { Swappable } from '../swappable.js';
import { TOKENS } from '../tokens.js';
/** Schedules (CRONS_FILE): the per-replica scheduler, the run of an occurrence, and the reload of both files. */
export const bindSchedules = (c, config, infra) => {
    c.bind(TOKENS.Schedules).toConstantValue(new Swappable(infra.schedules ?? []));
    c.bind(TOKENS.CronCalendar).toConstantValue(new CronParserCronCalendar());
    c.bind(TOKENS.ScheduleRunRepository).toResolvedValue((db) => new MikroOrmScheduleRunRepository(db), [TOKENS.Database]);
    c.bind(TOKENS.RunSchedule).toResolvedValue((...deps) => new RunSchedule(...deps), [TOKENS.Schedules, TOKENS.RunTrigger, TOKENS.ScheduleRunRepository, TOKENS.Clock, TOKENS.Logger]);
    c.bind(TOKENS.Scheduler)
        .toResolvedValue((schedules, calendar, queue, runs, clock, logger) => new Scheduler(schedules, calendar, queue, runs, clock, new NodeTimer(), logger), [TOKENS.Schedules, TOKENS.CronCalendar, TOKENS.TaskQueue, TOKENS.ScheduleRunRepository, TOKENS.Clock, TOKENS.Logger])
        .onDeactivation((scheduler) => scheduler.stop());
    c.bind(TOKENS.ConfigReloader).toResolvedValue((triggers, schedules, secrets, logger, scheduler) => new ConfigReloader(config, triggers, schedules, secrets, logger, () => scheduler.refresh()), [TOKENS.Triggers, TOKENS.Schedules, TOKENS.SecretStore, TOKENS.Logger, TOKENS.Scheduler]);
};
//# sourceMappingURL=schedule-bindings.js.map