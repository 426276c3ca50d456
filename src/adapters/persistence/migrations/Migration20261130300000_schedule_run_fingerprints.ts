import { Migration } from '@mikro-orm/migrations';

/**
 * The fingerprint of the schedule definition (expression, time zone, actions) that recorded each
 * row of `schedule_runs`, and rows that are markers rather than runs (status `baseline`: seen
 * enabled with that definition; `disabled`: seen disabled or gone). Start-up catches up only on
 * occurrences missed while the same definition was enabled (review L3). Rows recorded before
 * keep a null fingerprint: "unknown", for which start-up does what it did before this migration
 * once (catches up from the last recorded occurrence) and records the fingerprint from then on.
 */
export class Migration20261130300000_schedule_run_fingerprints extends Migration {
  override name = 'Migration20261130300000_schedule_run_fingerprints';

  override up(): void {
    this.addSql('alter table schedule_runs add column fingerprint varchar(64) null');
  }

  override down(): void {
    this.addSql("delete from schedule_runs where status in ('baseline', 'disabled')");
    this.addSql('alter table schedule_runs drop column if exists fingerprint');
  }
}
