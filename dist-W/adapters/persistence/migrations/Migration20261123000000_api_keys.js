import { Migration } from '@mikro-orm/migrations';
/**
 * API keys, and a notification on every change that can revoke a key (delete, a new
 * digest, truncate) so that every process holding a cache of keys drops it at once,
 * even when the change is plain SQL from outside the service.
 */
export class Migration20261123000000_api_keys extends Migration {
    name = 'Migration20261123000000_api_keys';
    up() {
        this.addSql(`create table api_keys (
      id uuid primary key,
      name varchar(100) not null,
      key_hash char(64) not null,
      prefix varchar(16) not null,
      created_at timestamptz not null default now(),
      last_used_at timestamptz null,
      constraint api_keys_key_hash_unique unique (key_hash)
    )`);
        this.addSql(`create function agw_api_keys_changed() returns trigger language plpgsql as $$
      begin
        if tg_op = 'TRUNCATE' then
          perform pg_notify('agw_api_keys', '*');
        else
          perform pg_notify('agw_api_keys', old.key_hash);
        end if;
        return null;
      end $$`);
        this.addSql(`create trigger api_keys_changed after delete or update of key_hash on api_keys
      for each row execute function agw_api_keys_changed()`);
        this.addSql(`create trigger api_keys_truncated after truncate on api_keys
      for each statement execute function agw_api_keys_changed()`);
    }
    down() {
        this.addSql('drop table if exists api_keys');
        this.addSql('drop function if exists agw_api_keys_changed()');
    }
}
//# sourceMappingURL=Migration20261123000000_api_keys.js.map