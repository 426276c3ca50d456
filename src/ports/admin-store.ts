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
   * Stores a session under the digest of its token.
   * @throws when a session with that digest exists (the stored one is kept), or the store fails.
   */
  addSession(tokenDigest: string, session: AdminSession): Promise<void>;
  /** The session, or null when unknown or expired (`expiresAt` at or before `now`). */
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
