import { Migration } from '@mikro-orm/migrations';
/** The record of trigger action runs, and the code-host deliveries already accepted. */
export class Migration20261123010000_trigger_runs extends Migration {
    name = 'Migration20261123010000_trigger_runs';
    up() {
        this.addSql(`create table action_runs (
      run_id uuid not null,
      action_index integer not null,
      trigger varchar(200) not null,
      type varchar(16) not null,
      status varchar(16) not null,
      attempts integer not null,
      started_at timestamptz not null,
      finished_at timestamptz not null,
      error text null,
      detail jsonb not null default '{}',
      primary key (run_id, action_index)
    )`);
        this.addSql('create index action_runs_finished_at_idx on action_runs (finished_at desc)');
        this.addSql(`create table codehost_deliveries (
      delivery_id varchar(200) primary key,
      event varchar(100) not null,
      received_at timestamptz not null default now()
    )`);
    }
    down() {
        this.addSql('drop table if exists codehost_deliveries');
        this.addSql('drop table if exists action_runs');
    }
}
//# sourceMappingURL=Migration20261123010000_trigger_runs.js.map