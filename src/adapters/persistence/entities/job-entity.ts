import { defineEntity, p } from '@mikro-orm/core';

/** Mapping of `jobs` (Migration20261123020000_jobs, Migration20261130000000_jobs_notice_queued). */
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
    // When the chat notice of a finished chat job was queued; null until then, and for other jobs.
    noticeQueuedAt: p.datetime().fieldName('notice_queued_at').nullable(),
  },
  indexes: [
    { name: 'jobs_status_created_idx', columns: [{ name: 'status' }, { name: 'created_at', sort: 'DESC' }] },
    // Partial: only the finished chat jobs whose notice is still to be queued (an expression is compared by name).
    {
      name: 'jobs_awaiting_notice_idx',
      expression:
        'create index "jobs_awaiting_notice_idx" on "jobs" ("updated_at", "id") where "source_kind" = \'chat\' and "notice_queued_at" is null and "status" in (\'succeeded\', \'failed\', \'cancelled\')',
    },
  ],
  uniques: [{ name: 'jobs_branch_idx', properties: 'branch' }],
});
