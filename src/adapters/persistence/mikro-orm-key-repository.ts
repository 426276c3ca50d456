import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { ApiKeyRecord } from '../../domain/auth/api-key-record.js';
import { DomainError } from '../../domain/errors/domain-error.js';
import type { KeyRepository } from '../../ports/key-repository.js';
import { AbsentDigests } from './absent-digests.js';
import type { Database } from './database.js';
import { ApiKeyEntity } from './entities/api-key-entity.js';

export const API_KEYS_CHANNEL = 'agw_api_keys';
const MAX_CACHED = 10_000;

type Row = InstanceType<typeof ApiKeyEntity.class>;

const toRecord = (row: Row): ApiKeyRecord => ({
  id: row.id,
  name: row.name,
  keyHash: row.keyHash.trim(),
  prefix: row.prefix,
  createdAt: row.createdAt,
  lastUsedAt: row.lastUsedAt ?? null,
});

/**
 * API keys in PostgreSQL/PGlite through MikroORM.
 *
 * Authentication must stay cheap, for known and unknown keys alike: found keys are cached by
 * digest, and unknown digests are answered without a query (AbsentDigests). Both are only
 * used while the database's change notifications are live (the `api_keys` triggers NOTIFY
 * every digest that goes or appears, and truncate): every change, from this process, another
 * replica, the CLI or plain SQL, reaches both at once. While notifications are down every
 * lookup goes to the database.
 */
export class MikroOrmKeyRepository implements KeyRepository {
  readonly #cache = new Map<string, ApiKeyRecord>();
  readonly #absent: AbsentDigests;
  /**
   * Lookups under way, by digest: callers asking for one digest at the same moment share one
   * query — a cold start under load asks once, not once per connection (on the embedded
   * database, each query waits for the one connection). Only while live; a change forgets the
   * lookups of what it touches, so that a caller after the change asks again.
   */
  readonly #lookups = new Map<string, Promise<ApiKeyRecord | null>>();
  #live = false;
  #unsubscribe: (() => Promise<void>) | undefined;

  constructor(private readonly db: Database) {
    // Plain rows, no entities: up to 100 001 of them.
    this.#absent = new AbsentDigests(async (limit) => {
      const rows: Array<{ key_hash: string }> = await db.orm.em.fork().createQueryBuilder(ApiKeyEntity).select('keyHash').limit(limit).execute('all', false);
      return rows.map((row) => row.key_hash.trim());
    });
  }

  /** Starts following change notifications; without it the repository never caches. */
  async start(): Promise<void> {
    this.#unsubscribe = await this.db.listen(API_KEYS_CHANNEL, {
      onMessage: (payload) => this.#changed(payload),
      onLiveChange: (live) => {
        this.#live = live;
        this.#changed('*');
      },
    });
  }

  async stop(): Promise<void> {
    this.#live = false;
    this.#changed('*');
    await this.#unsubscribe?.();
  }

  async add(record: ApiKeyRecord): Promise<void> {
    const em = this.db.orm.em.fork();
    em.create(ApiKeyEntity, { ...record, lastUsedAt: record.lastUsedAt ?? undefined });
    try {
      await em.flush();
      // The notification says so too; saying it here makes our own additions synchronous.
      this.#changed(record.keyHash);
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) {
        throw new DomainError('invalid_input', 'An API key with this id or digest already exists', { cause: error });
      }
      throw error;
    }
  }

  findByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    if (!this.#live) return this.#query(keyHash);
    const cached = this.#cache.get(keyHash);
    if (cached) return Promise.resolve(cached);
    const pending = this.#lookups.get(keyHash);
    if (pending) return pending;
    const lookup = this.#absent.surelyAbsent(keyHash).then((absent) => (absent ? null : this.#query(keyHash)));
    this.#lookups.set(keyHash, lookup);
    const done = (): void => {
      if (this.#lookups.get(keyHash) === lookup) this.#lookups.delete(keyHash);
    };
    lookup.then(done, done);
    return lookup;
  }

  async #query(keyHash: string): Promise<ApiKeyRecord | null> {
    const generation = this.#absent.generation;
    const row = await this.db.orm.em.fork().findOne(ApiKeyEntity, { keyHash });
    // A lookup that raced a change remembers nothing.
    const unchanged = this.#live && generation === this.#absent.generation;
    if (!row) {
      if (unchanged) this.#absent.missed(keyHash, generation);
      return null;
    }
    const record = toRecord(row);
    if (unchanged) {
      if (this.#cache.size >= MAX_CACHED) this.#cache.clear();
      this.#cache.set(keyHash, record);
    }
    return record;
  }

  knownByHash(keyHash: string): ApiKeyRecord | undefined {
    return this.#live ? this.#cache.get(keyHash) : undefined;
  }

  async list(): Promise<ApiKeyRecord[]> {
    const rows = await this.db.orm.em.fork().find(ApiKeyEntity, {}, { orderBy: { createdAt: 'asc', id: 'asc' } });
    return rows.map(toRecord);
  }

  /**
   * Deletes the key, and forgets its digest here once the delete is done — not only when it was
   * cached: a lookup of it under way (its query read the row before the delete, its answer comes
   * after) would otherwise cache the deleted record until the notification arrives (milliseconds
   * on PostgreSQL, with a pool). The digest is read first for that; forgetting it bumps the
   * generation a lookup started under, so such a lookup caches nothing (#query), and drops the
   * shared lookup, so a caller after the remove asks the database again.
   */
  async remove(id: string): Promise<boolean> {
    const em = this.db.orm.em.fork();
    const row: { key_hash: string } | undefined = await em.createQueryBuilder(ApiKeyEntity).select('keyHash').where({ id }).execute('get', false);
    try {
      return (await em.nativeDelete(ApiKeyEntity, { id })) > 0;
    } finally {
      // The notification evicts too; evicting here as well makes our own deletions synchronous.
      if (row !== undefined) this.#changed(row.key_hash);
      for (const [hash, record] of this.#cache) if (record.id === id) this.#changed(hash);
    }
  }

  async touch(id: string, at: Date): Promise<void> {
    await this.db.orm.em.fork().nativeUpdate(ApiKeyEntity, { id }, { lastUsedAt: at });
  }

  /** A digest went or appeared (`*`: any may have). */
  #changed(keyHash: string): void {
    if (keyHash === '*') {
      this.#cache.clear();
      this.#lookups.clear();
      this.#absent.reset();
      return;
    }
    const digest = keyHash.trim();
    this.#cache.delete(digest);
    this.#lookups.delete(digest);
    this.#absent.changed(digest);
  }
}
