/** One `Idempotency-Key` of one caller and the job it created. */
export interface IdempotencyRecord {
  /** Whose key it is: the API key's id (two callers may use the same key). */
  readonly scope: string;
  /** The header's value, 1 to 255 printable ASCII characters. */
  readonly key: string;
  /** Lower-case hex SHA-256 of the request body's canonical JSON. */
  readonly fingerprint: string;
  readonly jobId: string;
  readonly createdAt: Date;
}

/** Which scopes a retention delete is about: one scope, or every scope but one. */
export type ScopeFilter = { readonly scope: string } | { readonly notScope: string };

/** Remembers which job each idempotency key created (POST /api/create-job, `Idempotency-Key`). */
export interface IdempotencyKeyStore {
  /**
   * Stores `record` unless its scope and key hold an unexpired record (created at or after
   * `notBefore`); an expired one is replaced. Returns the record that holds the key afterwards:
   * `record` itself when it was stored, else the one found. Atomic across replicas: of claims
   * of one scope and key made at once, exactly one stores its record and every other gets it.
   * @throws when the store fails (nothing is stored then).
   */
  claim(record: IdempotencyRecord, notBefore: Date): Promise<IdempotencyRecord>;
  /** Forgets the key when it still names `jobId` (its job could not be created); idempotent. */
  release(scope: string, key: string, jobId: string): Promise<void>;
  /**
   * Retention: forgets up to `limit` records created before `cutoff`, oldest first, of the scopes
   * `which` names (`scope`: that one only; `notScope`: every other one; absent: all); returns
   * how many. Scopes are kept for different times: a chat answer's keys as long as its task may
   * still run (see SweepExpiredData), an API caller's for their 24 hours.
   */
  deleteOlderThan(cutoff: Date, limit: number, which?: ScopeFilter): Promise<number>;
}
