import { defineEntity, p } from '@mikro-orm/core';
/** Mapping of `jobs` (Migration20261123020000_jobs). */
export const JobEntity = defineEntity({
    name: 'Job',
    tableName: 'jobs',
    properties: {
        id: p.uuid().primary(),
        job: p.text(),
        status: p.string().length(16).check("status in ('queued', 'running', 'succeeded', 'failed', 'cancelled')"),
        sourceKind: p.string().length(16).fieldName('source_kind').check("source_kind in ('api', 'trigger', 'chat')"),
        sourceRef: p.string().length(200).fieldName('source_ref').nullable(),
        llmProvider: p.string().length(16).fieldName('llm_provider').nullable(),
        llmModel: p.string().length(200).fieldName('llm_model').nullable(),
        branch: p.string().length(100),
        prUrl: p.text().fieldName('pr_url').nullable(),
        runUrl: p.text().fieldName('run_url').nullable(),
        summary: p.text().nullable(),
        error: p.text().nullable(),
        log: p.text().nullable(),
        createdAt: p.datetime().fieldName('created_at'),
        updatedAt: p.datetime().fieldName('updated_at'),
    },
    indexes: [{ name: 'jobs_status_created_idx', columns: [{ name: 'status' }, { name: 'created_at', sort: 'DESC' }] }],
    uniques: [{ name: 'jobs_branch_idx', properties: 'branch' }],
});
//# sourceMappingURL=job-entity.js.map