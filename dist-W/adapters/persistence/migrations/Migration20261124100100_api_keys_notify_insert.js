import { Migration } from '@mikro-orm/migrations';
/**
 * A notification on the `agw_api_keys` channel for every digest that appears (insert, or an
 * update that sets a new digest), with that digest as payload, like the one for deletions:
 * a process that remembers which digests do not exist forgets it at once, so a key created
 * on any replica, by the CLI or by plain SQL works everywhere straight away.
 */
export class Migration20261124100100_api_keys_notify_insert extends Migration {
    name = 'Migration20261124100100_api_keys_notify_insert';
    up() {
        this.addSql(`create function agw_api_keys_added() returns trigger language plpgsql as $$
      begin
        perform pg_notify('agw_api_keys', new.key_hash);
        return null;
      end $$`);
        this.addSql(`create trigger api_keys_added after insert or update of key_hash on api_keys
      for each row execute function agw_api_keys_added()`);
    }
    down() {
        this.addSql('drop trigger if exists api_keys_added on api_keys');
        this.addSql('drop function if exists agw_api_keys_added()');
    }
}
//# sourceMappingURL=Migration20261124100100_api_keys_notify_insert.js.map