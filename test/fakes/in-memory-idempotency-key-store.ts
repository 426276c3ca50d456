import type { IdempotencyKeyStore, IdempotencyRecord, ScopeFilter } from '../../src/ports/idempotency-key-store.js';

/** IdempotencyKeyStore in a Map; passes the same contract suite as the database adapter. */
export class InMemoryIdempotencyKeyStore implements IdempotencyKeyStore {
  readonly records = new Map<string, IdempotencyRecord>();

  /** Atomic as the port requires: the check and the write happen in one synchronous step. */
  async claim(record: IdempotencyRecord, notBefore: Date): Promise<IdempotencyRecord> {
    const id = JSON.stringify([record.scope, record.key]);
    const held = this.records.get(id);
    if (held !== undefined && held.createdAt >= notBefore) return held;
    this.records.set(id, { ...record });
    return record;
  }

  async release(scope: string, key: string, jobId: string): Promise<void> {
    const id = JSON.stringify([scope, key]);
    if (this.records.get(id)?.jobId === jobId) this.records.delete(id);
  }

  async deleteOlderThan(cutoff: Date, limit: number, which?: ScopeFilter): Promise<number> {
    const inScope = (scope: string): boolean => (which === undefined ? true : 'scope' in which ? scope === which.scope : scope !== which.notScope);
    const old = [...this.records]
      .filter(([, record]) => record.createdAt < cutoff && inScope(record.scope))
      .sort(([, a], [, b]) => a.createdAt.getTime() - b.createdAt.getTime())
      .slice(0, limit);
    for (const [id] of old) this.records.delete(id);
    return old.length;
  }
}
