import { Migration } from '@mikro-orm/migrations';
/**
 * Approvals that actions with `approval: true` wait for; one per run and action. Action run
 * statuses grow (`awaiting_approval` is 17 characters).
 */
export class Migration20261127200000_approvals extends Migration {
    name = 'Migration20261127200000_approvals';
    up() {
        this.addSql(`create table approvals (
      id uuid primary key,
      run_id uuid not null,
      trigger varchar(200) not null,
      action_index int not null,
      action_type varchar(16) not null,
      summary text not null,
      request_id uuid null,
      watch_path varchar(200) not null,
      fired_at varchar(40) not null,
      status varchar(16) not null,
      created_at timestamptz not null,
      expires_at timestamptz not null,
      decided_by varchar(200) null,
      decided_at timestamptz null
    )`);
        this.addSql('create unique index approvals_run_action_idx on approvals (run_id, action_index)');
        this.addSql('create index approvals_status_expires_at_idx on approvals (status, expires_at)');
        this.addSql('create index approvals_created_at_idx on approvals (created_at)');
        this.addSql('alter table action_runs alter column status type varchar(32)');
    }
    down() {
        this.addSql('drop table if exists approvals');
    }
}
//# sourceMappingURL=Migration20261127200000_approvals.js.map