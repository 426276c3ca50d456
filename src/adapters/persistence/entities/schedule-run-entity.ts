import { defineEntity, p } from '@mikro-orm/core';

/** Mapping of `schedule_runs` (Migration20261127300000_schedule_runs, Migration20261130300000_schedule_run_fingerprints). */
export const ScheduleRunEntity = defineEntity({
  name: 'ScheduleRun',
  tableName: 'schedule_runs',
  properties: {
    schedule: p.string().length(200).primary(),
    occurrence: p.datetime().primary(),
    status: p.string().length(16),
    catchUp: p.boolean().fieldName('catch_up'),
    runId: p.uuid().nullable().fieldName('run_id'),
    updatedAt: p.datetime().fieldName('updated_at'),
    error: p.text().nullable(),
    fingerprint: p.string().length(64).nullable(),
  },
});
