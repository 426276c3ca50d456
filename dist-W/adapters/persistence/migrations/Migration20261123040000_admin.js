import { Migration } from '@mikro-orm/migrations';
/** Admin UI sessions (the password hash lives in `settings`). */
export class Migration20261123040000_admin extends Migration {
    name = 'Migration20261123040000_admin';
    up() {
        this.addSql(`create table admin_sessions (
      token_hash char(64) primary key,
      csrf_token varchar(100) not null,
      expires_at timestamptz not null,
      created_at timestamptz not null default now()
    )`);
    }
    down() {
        this.addSql('drop table if exists admin_sessions');
    }
}
//# sourceMappingURL=Migration20261123040000_admin.js.map