import { Migration } from '@mikro-orm/migrations';

/**
 * When the chat notice of a finished chat job was queued. A job's status is stored first and its
 * notice queued after; a job finished but not marked (the process was killed between the two)
 * is found by the partial index and its notice queued then (RequeueLostJobNotices). Chat jobs
 * that finished before this migration had their notice queued with the old code (or lost it for
 * good): they count as notified, so that no old notice is sent again after the upgrade.
 */
export class Migration20261130000000_jobs_notice_queued extends Migration {
  override name = 'Migration20261130000000_jobs_notice_queued';

  override up(): void {
    this.addSql('alter table jobs add column notice_queued_at timestamptz null');
    this.addSql("update jobs set notice_queued_at = updated_at where source_kind = 'chat' and status in ('succeeded', 'failed', 'cancelled')");
    this.addSql(
      "create index jobs_awaiting_notice_idx on jobs (updated_at, id) where source_kind = 'chat' and notice_queued_at is null and status in ('succeeded', 'failed', 'cancelled')",
    );
  }

  override down(): void {
    this.addSql('drop index if exists jobs_awaiting_notice_idx');
    this.addSql('alter table jobs drop column if exists notice_queued_at');
  }
}
