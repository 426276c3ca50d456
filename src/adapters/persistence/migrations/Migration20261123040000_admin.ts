import { Migration } from '@mikro-orm/migrations';

/** Admin UI sessions (the password hash lives in `settings`). */
export class Migration20261123040000_admin extends Migration {
  override name = 'Migration20261123040000_admin';

  override up(): void {
    this.addSql(`create table admin_sessions (
      token_hash char(64) primary key,
      csrf_token varchar(100) not null,
      expires_at timestamptz not null,
      created_at timestamptz not null default now()
    )`);
  }

  override down(): void {
    this.addSql('drop table if exists admin_sessions');
  }
}
