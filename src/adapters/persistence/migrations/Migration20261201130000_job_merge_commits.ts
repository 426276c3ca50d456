import { Migration } from '@mikro-orm/migrations';

/**
 * The commits of auto-merges (AUTO_MERGE): the job's head a merge is asked for (recorded before
 * the merge call) and the merge commit (from the merge's answer, or from the push that brings the
 * job's head into the base branch). A code-host event of one of them (the push of the merge to
 * `main`, the runs and checks on the merge commit) is the job's own, and runs no agent action
 * (docs/triggers.md): a trigger would otherwise start a job for each merge, whose merge would
 * start the next. Insert-only, one row per commit; looked up by the commit (the primary key).
 */
export class Migration20261201130000_job_merge_commits extends Migration {
  override name = 'Migration20261201130000_job_merge_commits';

  override up(): void {
    this.addSql(`create table job_merge_commits (
      sha varchar(64) not null,
      job_id uuid not null,
      created_at timestamptz not null,
      primary key (sha)
    )`);
  }

  override down(): void {
    this.addSql('drop table if exists job_merge_commits');
  }
}
