import { Migration } from '@mikro-orm/migrations';

/** Leases of the update pollers (one replica polls a chat platform) and the position each reached. */
export class Migration20261127000000_poller_leases extends Migration {
  override name = 'Migration20261127000000_poller_leases';

  override up(): void {
    this.addSql(`create table poller_leases (
      name varchar(100) primary key,
      holder varchar(100) null,
      expires_at timestamptz null,
      cursor text null
    )`);
  }

  override down(): void {
    this.addSql('drop table if exists poller_leases');
  }
}
