import { defineEntity, p } from '@mikro-orm/core';
/** Mapping of `action_runs` (Migration20261123010000_trigger_runs; status widened by Migration20261127200000_approvals). */
export const ActionRunEntity = defineEntity({
    name: 'ActionRun',
    tableName: 'action_runs',
    properties: {
        runId: p.uuid().primary().fieldName('run_id'),
        actionIndex: p.integer().primary().fieldName('action_index'),
        trigger: p.string().length(200),
        type: p.string().length(16),
        status: p.string().length(32),
        attempts: p.integer(),
        startedAt: p.datetime().fieldName('started_at'),
        finishedAt: p.datetime().fieldName('finished_at'),
        error: p.text().nullable(),
        detail: p.json().defaultRaw("'{}'"),
    },
    indexes: [{ name: 'action_runs_finished_at_idx', columns: [{ name: 'finished_at', sort: 'DESC' }] }],
});
//# sourceMappingURL=action-run-entity.js.map