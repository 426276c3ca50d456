import { Migration } from '@mikro-orm/migrations';
/**
 * Requests that fired triggers, stored once per request; trigger run tasks refer to them by id.
 * `request` is the snapshot's JSON text (text keeps escaped NULs, lone surrogates and key order).
 */
export class Migration20261124000000_inbound_requests extends Migration {
    name = 'Migration20261124000000_inbound_requests';
    up() {
        this.addSql(`create table inbound_requests (
      id uuid primary key,
      watch_path varchar(200) not null,
      received_at timestamptz not null,
      triggers jsonb not null default '[]',
      request text not null
    )`);
        this.addSql('create index inbound_requests_received_at_idx on inbound_requests (received_at)');
    }
    down() {
        this.addSql('drop table if exists inbound_requests');
    }
}
//# sourceMappingURL=Migration20261124000000_inbound_requests.js.map