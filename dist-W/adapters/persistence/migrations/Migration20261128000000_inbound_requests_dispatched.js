import { Migration } from '@mikro-orm/migrations';
/**
 * Whether a stored request's trigger runs are queued yet. A request is stored before its caller
 * is answered; its runs are queued afterwards (DispatchTriggerRuns), and a request stored but not
 * dispatched (the service stopped in between) is found by the partial index and queued then.
 * Requests stored before this migration had their runs queued with them: they are dispatched.
 */
export class Migration20261128000000_inbound_requests_dispatched extends Migration {
    name = 'Migration20261128000000_inbound_requests_dispatched';
    up() {
        this.addSql('alter table inbound_requests add column dispatched boolean not null default true');
        this.addSql('create index inbound_requests_undispatched_idx on inbound_requests (received_at) where not dispatched');
    }
    down() {
        this.addSql('drop index if exists inbound_requests_undispatched_idx');
        this.addSql('alter table inbound_requests drop column if exists dispatched');
    }
}
//# sourceMappingURL=Migration20261128000000_inbound_requests_dispatched.js.map