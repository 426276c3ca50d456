import { Migration } from '@mikro-orm/migrations';
/**
 * The delivery log: each stored request names the trigger runs it started (`runs`, so that its
 * page shows their action runs) and, for a replay, the request it replays (`replay_of`).
 * Records stored before this have no runs listed; nothing else changes for them.
 */
export class Migration20261126100000_delivery_log extends Migration {
    name = 'Migration20261126100000_delivery_log';
    up() {
        this.addSql(`alter table inbound_requests add column runs jsonb not null default '[]'`);
        this.addSql('alter table inbound_requests add column replay_of uuid null');
        this.addSql('create index inbound_requests_watch_path_received_at_idx on inbound_requests (watch_path, received_at)');
    }
    down() {
        this.addSql('drop index if exists inbound_requests_watch_path_received_at_idx');
        this.addSql('alter table inbound_requests drop column if exists replay_of');
        this.addSql('alter table inbound_requests drop column if exists runs');
    }
}
//# sourceMappingURL=Migration20261126100000_delivery_log.js.map