import type { IdempotencyKeyStore, IdempotencyRecord, ScopeFilter } from '../../ports/idempotency-key-store.js';
import type { Database } from './database.js';
import { IdempotencyKeyEntity } from './entities/idempotency-key-entity.js';

interface Row {
  readonly scope: string;
  readonly idempotency_key: string;
  readonly fingerprint: string;
  readonly job_id: string;
  readonly created_at: Date | string;
}

const toRecord = (row: Row): IdempotencyRecord => ({
  scope: row.scope,
  key: row.idempotency_key,
  fingerprint: row.fingerprint,
  jobId: row.job_id,
  createdAt: new Date(row.created_at),
});

/**
 * Idempotency keys in `idempotency_keys`. A claim is one statement — insert, or replace an
 * expired row, on the primary key's conflict — so concurrent claims on any replica serialise on
 * the row and exactly one stores its record.
 */
export class MikroOrmIdempotencyKeyStore implements IdempotencyKeyStore {
  constructor(private readonly db: Database) {}

  async claim(record: IdempotencyRecord, notBefore: Date): Promise<IdempotencyRecord> {
    const connection = this.db.orm.em.getConnection();
    // A row released or swept between the two statements leaves nothing to read: claim again.
    for (let attempt = 0; attempt < 3; attempt++) {
      const stored = (await connection.execute(
        `insert into idempotency_keys (scope, idempotency_key, fingerprint, job_id, created_at) values (?, ?, ?, ?, ?)
         on conflict (scope, idempotency_key) do update
           set fingerprint = excluded.fingerprint, job_id = excluded.job_id, created_at = excluded.created_at
           where idempotency_keys.created_at < ?
         returning scope`,
        [record.scope, record.key, record.fingerprint, record.jobId, record.createdAt, notBefore],
      )) as Row[];
      if (stored.length === 1) return record;
      const held = (await connection.execute('select * from idempotency_keys where scope = ? and idempotency_key = ?', [record.scope, record.key])) as Row[];
      if (held.length === 1) return toRecord(held[0]);
    }
    throw new Error('idempotency key could neither be claimed nor read');
  }

  async release(scope: string, key: string, jobId: string): Promise<void> {
    await this.db.orm.em.fork().nativeDelete(IdempotencyKeyEntity, { scope, key, jobId });
  }

  async deleteOlderThan(cutoff: Date, limit: number, which?: ScopeFilter): Promise<number> {
    const [scoped, scope] = which === undefined ? ['', []] : 'scope' in which ? [' and scope = ?', [which.scope]] : [' and scope <> ?', [which.notScope]];
    const rows = (await this.db.orm.em.getConnection().execute(
      `delete from idempotency_keys where (scope, idempotency_key) in
         (select scope, idempotency_key from idempotency_keys where created_at < ?${scoped} order by created_at limit ?)
       returning scope`,
      [cutoff, ...scope, limit],
    )) as Row[];
    return rows.length;
  }
}
