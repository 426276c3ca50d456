import { Migration } from '@mikro-orm/migrations';
/** Admin login attempts per client and window: the login limit, shared by every replica. */
export class Migration20261124100000_admin_login_attempts extends Migration {
    name = 'Migration20261124100000_admin_login_attempts';
    up() {
        this.addSql(`create table admin_login_attempts (
      client char(64) primary key,
      attempts integer not null,
      window_started_at timestamptz not null
    )`);
        this.addSql('create index admin_login_attempts_window_idx on admin_login_attempts (window_started_at)');
    }
    down() {
        this.addSql('drop table if exists admin_login_attempts');
    }
}
//# sourceMappingURL=Migration20261124100000_admin_login_attempts.js.map