import type { AdminSession, AdminStore } from '../../src/ports/admin-store.js';

/** AdminStore in memory; passes the same contract suite as the database adapter. */
export class InMemoryAdminStore implements AdminStore {
  hash: string | undefined;
  /** Each session with the password hash it was made with. */
  readonly sessions = new Map<string, AdminSession & { readonly passwordHash: string }>();

  async passwordHash(): Promise<string | undefined> {
    return this.hash;
  }
  async setPasswordHash(hash: string): Promise<void> {
    this.hash = hash;
  }
  async addSession(tokenDigest: string, session: AdminSession, passwordHash: string): Promise<void> {
    if (this.sessions.has(tokenDigest)) throw new Error('A session with this digest exists');
    this.sessions.set(tokenDigest, { csrfToken: session.csrfToken, expiresAt: new Date(session.expiresAt), passwordHash });
  }
  async session(tokenDigest: string, now: Date): Promise<AdminSession | null> {
    const session = this.sessions.get(tokenDigest);
    if (session === undefined || session.expiresAt <= now || session.passwordHash !== this.hash) return null;
    return { csrfToken: session.csrfToken, expiresAt: new Date(session.expiresAt) };
  }
  async removeSession(tokenDigest: string): Promise<void> {
    this.sessions.delete(tokenDigest);
  }
  async removeAllSessions(): Promise<void> {
    this.sessions.clear();
  }
  async deleteExpiredSessions(now: Date, limit: number): Promise<number> {
    const expired = [...this.sessions]
      .filter(([, session]) => session.expiresAt <= now)
      .sort(([, a], [, b]) => a.expiresAt.getTime() - b.expiresAt.getTime())
      .slice(0, limit);
    for (const [digest] of expired) this.sessions.delete(digest);
    return expired.length;
  }
}
