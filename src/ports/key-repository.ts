import type { ApiKeyRecord } from '../domain/auth/api-key-record.js';

/** Where API keys are stored. Implementations keep only the digest of a key, never the key. */
export interface KeyRepository {
  /**
   * Stores a new key record.
   * @throws DomainError `invalid_input` when a record with the same id or digest exists.
   */
  add(record: ApiKeyRecord): Promise<void>;

  /**
   * The record whose digest equals `keyHash`, or `null` when none exists — including
   * right after the record was deleted by any means (this process, another process, plain SQL).
   * A record added by any means is found likewise: at once when added through this
   * repository, within a change notification's delay otherwise, also when its digest was
   * looked up and not found just before. Must not scan all records.
   */
  findByHash(keyHash: string): Promise<ApiKeyRecord | null>;

  /**
   * The record whose digest equals `keyHash` when the repository knows it without asking its
   * store — held in memory and kept current, so never a record that findByHash would no longer
   * return — else `undefined`, and the caller asks findByHash. Lets a known key be
   * authenticated without waiting on anything. `undefined` is always a correct answer.
   */
  knownByHash(keyHash: string): ApiKeyRecord | undefined;

  /** Every record, oldest first. */
  list(): Promise<ApiKeyRecord[]>;

  /** Deletes the record. Returns `false` when no record had that id (idempotent). */
  remove(id: string): Promise<boolean>;

  /** Records that the key was used at `at`. Best effort; a missing record is not an error. */
  touch(id: string, at: Date): Promise<void>;
}
