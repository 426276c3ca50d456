import type { ApiKeyRecord } from '../../src/domain/auth/api-key-record.js';
import { DomainError } from '../../src/domain/errors/domain-error.js';
import type { KeyRepository } from '../../src/ports/key-repository.js';

/** KeyRepository in a Map; passes the same contract suite as the database adapter. */
export class InMemoryKeyRepository implements KeyRepository {
  readonly #records = new Map<string, ApiKeyRecord>();
  touches = 0;

  async add(record: ApiKeyRecord): Promise<void> {
    for (const existing of this.#records.values()) {
      if (existing.id === record.id || existing.keyHash === record.keyHash) {
        throw new DomainError('invalid_input', 'An API key with this id or digest already exists');
      }
    }
    this.#records.set(record.id, { ...record });
  }

  async findByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    for (const record of this.#records.values()) if (record.keyHash === keyHash) return { ...record };
    return null;
  }

  knownByHash(keyHash: string): ApiKeyRecord | undefined {
    for (const record of this.#records.values()) if (record.keyHash === keyHash) return { ...record };
    return undefined;
  }

  async list(): Promise<ApiKeyRecord[]> {
    return [...this.#records.values()]
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id))
      .map((record) => ({ ...record }));
  }

  async remove(id: string): Promise<boolean> {
    return this.#records.delete(id);
  }

  async touch(id: string, at: Date): Promise<void> {
    this.touches++;
    const record = this.#records.get(id);
    if (record) this.#records.set(id, { ...record, lastUsedAt: at });
  }
}
