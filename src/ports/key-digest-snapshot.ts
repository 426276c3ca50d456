/** A stored API key as the start of the service needs it: its id and digest, nothing else. */
export interface KeyDigest {
  readonly id: string;
  /** Lower-case hex SHA-256 of the key. */
  readonly keyHash: string;
}

/**
 * A copy of the stored keys' digests kept beside the embedded database, so that the service can
 * tell a known key while its database is still opening (EarlyIntake). It may be out of date —
 * keys changed while it could not be written — so what it admits is checked against the database
 * again before anything runs (ImportEarlyIntake); a key it lacks simply waits for the database.
 */
export interface KeyDigestSnapshot {
  /** Replaces the copy with these keys, atomically: a reader sees the old copy or the new one. */
  write(keys: readonly KeyDigest[]): Promise<void>;
  /** The copy, digest → key id; undefined when there is none or it cannot be read. */
  read(): Promise<ReadonlyMap<string, string> | undefined>;
  /** Removes the copy (when it could not be brought up to date). */
  remove(): Promise<void>;
}
