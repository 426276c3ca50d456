export interface AdminSession {
  readonly csrfToken: string;
  readonly expiresAt: Date;
}

/** The admin credential and the admin UI's sessions. Session tokens are stored as digests only. */
export interface AdminStore {
  passwordHash(): Promise<string | undefined>;
  setPasswordHash(hash: string): Promise<void>;
  /** Stores a session under the digest of its token. */
  addSession(tokenDigest: string, session: AdminSession): Promise<void>;
  /** The session, or null when unknown or expired. */
  session(tokenDigest: string, now: Date): Promise<AdminSession | null>;
  removeSession(tokenDigest: string): Promise<void>;
  /** Ends every session (a new password logs everybody out). */
  removeAllSessions(): Promise<void>;
}
