import { Migration } from '@mikro-orm/migrations';
/**
 * Schedule occurrences (config/CRONS.json): one row per schedule and occurrence, whichever
 * replica enqueued or ran it; the latest row of a schedule tells start-up what was missed.
 */
export class Migration20261127300000_schedule_runs extends Migration {
    name = 'Migration20261127300000_schedule_runs';
    up() {
        this.addSql(`create table schedule_runs (
      schedule varchar(200) not null,
      occurrence timestamptz not null,
      status varchar(16) not null,
      catch_up boolean not null,
      run_id uuid null,
      updated_at timestamptz not null,
      error text null,
      primary key (schedule, occurrence)
    )`);
    }
    down() {
        this.addSql('drop table if exists schedule_runs');
    }
}
//# sourceMappingURL=Migration20261127300000_schedule_runs.js.map