import { Migration } from '@mikro-orm/migrations';
/** Leases of the update pollers (one replica polls a chat platform) and the position each reached. */
export class Migration20261127000000_poller_leases extends Migration {
    name = 'Migration20261127000000_poller_leases';
    up() {
        this.addSql(`create table poller_leases (
      name varchar(100) primary key,
      holder varchar(100) null,
      expires_at timestamptz null,
      cursor text null
    )`);
    }
    down() {
        this.addSql('drop table if exists poller_leases');
    }
}
//# sourceMappingURL=Migration20261127000000_poller_leases.js.map