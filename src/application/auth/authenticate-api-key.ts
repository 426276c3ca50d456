import { isWellFormedApiKey } from '../../domain/auth/api-key-format.js';
import { summarize, type ApiKeyRecord, type ApiKeySummary } from '../../domain/auth/api-key-record.js';
import { DomainError } from '../../domain/errors/domain-error.js';
import type { ApiKeyCrypto } from '../../ports/api-key-crypto.js';
import type { Clock } from '../../ports/clock.js';
import type { KeyRepository } from '../../ports/key-repository.js';
import type { Logger } from '../../ports/logger.js';

/** How often `last_used_at` is written for one key: often enough to be useful, rare enough to stay off the hot path. */
export const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * SPEC 5.2: read the presented key, look it up among the stored keys by digest and
 * compare in constant time. Every failure is the same `unauthorized` error.
 */
export class AuthenticateApiKey {
  readonly #touchedAt = new Map<string, number>();

  constructor(
    private readonly keys: KeyRepository,
    private readonly crypto: ApiKeyCrypto,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** `recordUse` false: a check again of a key accepted already (a request's use goes to `last_used_at` once). */
  async execute(presented: string | undefined, recordUse = true): Promise<ApiKeySummary> {
    return summarize(await this.accept(presented, recordUse));
  }

  /**
   * execute's answer when it needs nothing but memory — the key is well-formed and its
   * repository knows it (KeyRepository.knownByHash) — else `undefined`, and the caller awaits
   * execute. A malformed key is refused here too. Spares a known key's request every promise.
   */
  known(presented: string | undefined, recordUse = true): ApiKeySummary | undefined {
    const record = this.acceptKnown(presented, recordUse);
    return record === undefined ? undefined : summarize(record);
  }

  /**
   * execute, answering the key's record: what stillAccepted takes to check the key again.
   * The record stays inside the gateway (it holds the digest): never shown nor logged.
   */
  async accept(presented: string | undefined, recordUse = true): Promise<ApiKeyRecord> {
    const digest = this.#digestOf(presented);
    return this.#accept(digest, await this.keys.findByHash(digest), recordUse);
  }

  /** known, answering the key's record (see accept). */
  acceptKnown(presented: string | undefined, recordUse = true): ApiKeyRecord | undefined {
    const digest = this.#digestOf(presented);
    const record = this.keys.knownByHash(digest);
    return record === undefined ? undefined : this.#accept(digest, record, recordUse);
  }

  /**
   * Whether the key whose record accept or acceptKnown answered is still stored, by memory
   * alone: the repository still knows its digest (KeyRepository.knownByHash: never a record
   * deleted since) as the same key. No digest is computed again — the record holds it, and the
   * first check compared it. `false` says only that memory cannot tell (the key revoked, its
   * cache cleared, change notifications down): the caller asks stillStored.
   */
  stillAccepted(record: ApiKeyRecord): boolean {
    const current = this.keys.knownByHash(record.keyHash);
    return current === record || (current !== undefined && current.id === record.id);
  }

  /** stillAccepted asking the store: rejects with `unauthorized` when the key is gone. Records no use. */
  async stillStored(record: ApiKeyRecord): Promise<void> {
    const current = await this.keys.findByHash(record.keyHash);
    if (current === null || current.id !== record.id) {
      throw new DomainError('unauthorized', 'Unauthorized');
    }
  }

  #digestOf(presented: string | undefined): string {
    if (presented === undefined || presented === '' || !isWellFormedApiKey(presented)) {
      throw new DomainError('unauthorized', 'Unauthorized');
    }
    return this.crypto.digest(presented);
  }

  #accept(digest: string, record: ApiKeyRecord | null, recordUse: boolean): ApiKeyRecord {
    if (record === null || !this.crypto.equal(digest, record.keyHash)) {
      throw new DomainError('unauthorized', 'Unauthorized');
    }
    if (recordUse) this.#recordUse(record.id);
    return record;
  }

  #recordUse(id: string): void {
    const now = this.clock.now();
    const last = this.#touchedAt.get(id);
    if (last !== undefined && now.getTime() - last < LAST_USED_RESOLUTION_MS) return;
    this.#touchedAt.set(id, now.getTime());
    this.keys.touch(id, now).catch((error: unknown) => {
      this.logger.warn({ err: error, keyId: id }, 'could not record key use');
    });
  }
}
