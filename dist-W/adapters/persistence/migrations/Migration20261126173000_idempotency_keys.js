import { Migration } from '@mikro-orm/migrations';
/**
 * `Idempotency-Key`s of POST /api/create-job: the primary key (scope = the API key's id, the
 * header's value) makes one of concurrent duplicates create the job; the retention sweep
 * deletes rows past the 24-hour window by `created_at`.
 */
export class Migration20261126173000_idempotency_keys extends Migration {
    name = 'Migration20261126173000_idempotency_keys';
    up() {
        this.addSql(`create table idempotency_keys (
      scope varchar(64) not null,
      idempotency_key varchar(255) not null,
      fingerprint char(64) not null,
      job_id uuid not null,
      created_at timestamptz not null,
      primary key (scope, idempotency_key)
    )`);
        this.addSql('create index idempotency_keys_created_at_idx on idempotency_keys (created_at)');
    }
    down() {
        this.addSql('drop table if exists idempotency_keys');
    }
}
//# sourceMappingURL=Migration20261126173000_idempotency_keys.js.map