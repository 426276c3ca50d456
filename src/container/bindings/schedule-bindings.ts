import type { Container } from 'inversify';
import type { Database } from '../../adapters/persistence/database.js';
import { MikroOrmScheduleRunRepository } from '../../adapters/persistence/mikro-orm-schedule-run-repository.js';
import { CronParserCronCalendar } from '../../adapters/schedule/cron-parser-cron-calendar.js';
import { NodeTimer } from '../../adapters/system/node-timer.js';
import { RunSchedule } from '../../application/schedules/run-schedule.js';
import { Scheduler } from '../../application/schedules/scheduler.js';
import type { AppConfig } from '../config.js';
import { ConfigReloader } from '../config-reloader.js';
import type { Infrastructure } from '../infrastructure.js';
import { Swappable } from '../swappable.js';
import { TOKENS } from '../tokens.js';

/** Schedules (CRONS_FILE): the per-replica scheduler, the run of an occurrence, and the reload of both files. */
export const bindSchedules = (c: Container, config: AppConfig, infra: Infrastructure): void => {
  c.bind(TOKENS.Schedules).toConstantValue(new Swappable(infra.schedules ?? []));
  c.bind(TOKENS.CronCalendar).toConstantValue(new CronParserCronCalendar());
  c.bind(TOKENS.ScheduleRunRepository).toResolvedValue((db: Database) => new MikroOrmScheduleRunRepository(db), [TOKENS.Database]);
  c.bind(TOKENS.RunSchedule).toResolvedValue(
    (...deps: ConstructorParameters<typeof RunSchedule>) => new RunSchedule(...deps),
    [TOKENS.Schedules, TOKENS.RunTrigger, TOKENS.ScheduleRunRepository, TOKENS.Clock, TOKENS.Logger],
  );
  c.bind(TOKENS.Scheduler)
    .toResolvedValue(
      // The fingerprints of the schedules' definitions are made with the key of the triggers' action fingerprints.
      (schedules, calendar, queue, runs, clock, logger, fingerprintKey) =>
        new Scheduler(schedules, calendar, queue, runs, clock, new NodeTimer(), logger, fingerprintKey),
      [TOKENS.Schedules, TOKENS.CronCalendar, TOKENS.TaskQueue, TOKENS.ScheduleRunRepository, TOKENS.Clock, TOKENS.Logger, TOKENS.FingerprintKey],
    )
    .onDeactivation((scheduler) => scheduler.stop());
  c.bind(TOKENS.ConfigReloader).toResolvedValue(
    (triggers, schedules, secrets, logger, scheduler) => new ConfigReloader(config, triggers, schedules, secrets, logger, () => scheduler.refresh()),
    [TOKENS.Triggers, TOKENS.Schedules, TOKENS.SecretStore, TOKENS.Logger, TOKENS.Scheduler],
  );
};
