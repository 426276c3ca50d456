export interface AdminSession {
  readonly csrfToken: string;
  readonly expiresAt: Date;
}

/** The admin credential and the admin UI's sessions, shared by every replica. Session tokens are stored as digests only. */
export interface AdminStore {
  /** The stored password hash, or undefined when no password was set yet. */
  passwordHash(): Promise<string | undefined>;
  /** Stores the password hash, replacing the one stored before. */
  setPasswordHash(hash: string): Promise<void>;
  /**
   * Stores a session under the digest of its token, made by a login that checked the password
   * against `passwordHash` (the hash it read). The session counts only while that is still the
   * stored hash (see `session`), so a login checked against a hash that a new password replaced
   * meanwhile leaves no session that counts, in whatever order the two end. The store keeps only
   * a digest of `passwordHash` with the session.
   * @throws when a session with that digest exists (the stored one is kept), or the store fails.
   */
  addSession(tokenDigest: string, session: AdminSession, passwordHash: string): Promise<void>;
  /**
   * The session, or null when unknown, expired (`expiresAt` at or before `now`), or made with a
   * password hash that is no longer the stored one (or when none is stored): one consistent
   * read of the session and the stored hash.
   */
  session(tokenDigest: string, now: Date): Promise<AdminSession | null>;
  /** Ends the session (logout). Idempotent: an unknown digest is no error. */
  removeSession(tokenDigest: string): Promise<void>;
  /** Ends every session (a new password logs everybody out). */
  removeAllSessions(): Promise<void>;
  /**
   * Retention: deletes up to `limit` sessions that expired at or before `now`, the longest
   * expired first, and returns how many it deleted (fewer than `limit`: none is left).
   */
  deleteExpiredSessions(now: Date, limit: number): Promise<number>;
}
