import { defineEntity, p } from '@mikro-orm/core';
/** Mapping of `approvals` (Migration20261127200000_approvals). */
export const ApprovalEntity = defineEntity({
    name: 'Approval',
    tableName: 'approvals',
    properties: {
        id: p.uuid().primary(),
        runId: p.uuid().fieldName('run_id'),
        trigger: p.string().length(200),
        actionIndex: p.integer().fieldName('action_index'),
        actionType: p.string().length(16).fieldName('action_type'),
        summary: p.text(),
        requestId: p.uuid().fieldName('request_id').nullable(),
        watchPath: p.string().length(200).fieldName('watch_path'),
        firedAt: p.string().length(40).fieldName('fired_at'),
        status: p.string().length(16),
        createdAt: p.datetime().fieldName('created_at').index('approvals_created_at_idx'),
        expiresAt: p.datetime().fieldName('expires_at'),
        decidedBy: p.string().length(200).fieldName('decided_by').nullable(),
        decidedAt: p.datetime().fieldName('decided_at').nullable(),
    },
    uniques: [{ name: 'approvals_run_action_idx', properties: ['runId', 'actionIndex'] }],
    indexes: [{ name: 'approvals_status_expires_at_idx', properties: ['status', 'expiresAt'] }],
});
//# sourceMappingURL=approval-entity.js.map