import { defineEntity, p } from '@mikro-orm/core';

/** Mapping of `job_merge_commits` (Migration20261201130000_job_merge_commits): one row per commit of a job's auto-merge. */
export const JobMergeCommitEntity = defineEntity({
  name: 'JobMergeCommit',
  tableName: 'job_merge_commits',
  properties: {
    sha: p.string().length(64).primary(),
    jobId: p.uuid().fieldName('job_id'),
    createdAt: p.datetime().fieldName('created_at'),
  },
});
