import { Migration } from '@mikro-orm/migrations';
/**
 * Indexes for the retention sweep: it deletes the oldest rows in batches (`… order by <time>
 * limit n`), which without an index on the time would read the whole table every batch.
 * `action_runs`, `inbound_requests` and `admin_login_attempts` have theirs already.
 */
export class Migration20261125000000_retention_indexes extends Migration {
    name = 'Migration20261125000000_retention_indexes';
    up() {
        this.addSql('create index chat_turns_created_at_idx on chat_turns (created_at)');
        this.addSql('create index codehost_deliveries_received_at_idx on codehost_deliveries (received_at)');
        this.addSql('create index admin_sessions_expires_at_idx on admin_sessions (expires_at)');
    }
    down() {
        this.addSql('drop index if exists admin_sessions_expires_at_idx');
        this.addSql('drop index if exists codehost_deliveries_received_at_idx');
        this.addSql('drop index if exists chat_turns_created_at_idx');
    }
}
//# sourceMappingURL=Migration20261125000000_retention_indexes.js.map