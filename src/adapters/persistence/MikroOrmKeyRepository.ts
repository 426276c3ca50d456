import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { ApiKeyRecord } from '../../domain/auth/ApiKeyRecord.js';
import { DomainError } from '../../domain/errors/DomainError.js';
import type { KeyRepository } from '../../ports/KeyRepository.js';
import type { Database } from './Database.js';
import { ApiKeyEntity } from './entities/ApiKeyEntity.js';

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
 * Authentication must stay cheap, so found keys are cached by digest. The cache is
 * only used while the database's change notifications are live (the `api_keys`
 * trigger NOTIFYs on delete, digest change and truncate): every change, from this
 * process, another replica, the CLI or plain SQL, evicts at once. While notifications
 * are down every lookup goes to the database.
 */
export class MikroOrmKeyRepository implements KeyRepository {
  readonly #cache = new Map<string, ApiKeyRecord>();
  #live = false;
  /** Bumped on every change notification: a lookup that raced a change is not cached. */
  #generation = 0;
  #unsubscribe: (() => Promise<void>) | undefined;

  constructor(private readonly db: Database) {}

  /** Starts following change notifications; without it the repository never caches. */
  async start(): Promise<void> {
    this.#unsubscribe = await this.db.listen(API_KEYS_CHANNEL, {
      onMessage: (payload) => this.#evict(payload),
      onLiveChange: (live) => {
        this.#live = live;
        this.#evict('*');
      },
    });
  }

  async stop(): Promise<void> {
    this.#live = false;
    this.#cache.clear();
    await this.#unsubscribe?.();
  }

  async add(record: ApiKeyRecord): Promise<void> {
    const em = this.db.orm.em.fork();
    em.create(ApiKeyEntity, { ...record, lastUsedAt: record.lastUsedAt ?? undefined });
    try {
      await em.flush();
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) {
        throw new DomainError('invalid_input', 'An API key with this id or digest already exists', { cause: error });
      }
      throw error;
    }
  }

  async findByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    const cached = this.#live ? this.#cache.get(keyHash) : undefined;
    if (cached) return cached;
    const generation = this.#generation;
    const row = await this.db.orm.em.fork().findOne(ApiKeyEntity, { keyHash });
    if (!row) return null;
    const record = toRecord(row);
    if (this.#live && generation === this.#generation) {
      if (this.#cache.size >= MAX_CACHED) this.#cache.clear();
      this.#cache.set(keyHash, record);
    }
    return record;
  }

  async list(): Promise<ApiKeyRecord[]> {
    const rows = await this.db.orm.em.fork().find(ApiKeyEntity, {}, { orderBy: { createdAt: 'asc', id: 'asc' } });
    return rows.map(toRecord);
  }

  async remove(id: string): Promise<boolean> {
    const removed = await this.db.orm.em.fork().nativeDelete(ApiKeyEntity, { id });
    // The notification evicts too; evicting here as well makes our own deletions synchronous.
    for (const [hash, record] of this.#cache) if (record.id === id) this.#evict(hash);
    return removed > 0;
  }

  async touch(id: string, at: Date): Promise<void> {
    await this.db.orm.em.fork().nativeUpdate(ApiKeyEntity, { id }, { lastUsedAt: at });
  }

  #evict(keyHash: string): void {
    this.#generation++;
    if (keyHash === '*') this.#cache.clear();
    else this.#cache.delete(keyHash.trim());
  }
}
