import type { AdminSession, AdminStore } from '../../ports/AdminStore.js';
import type { Database } from './Database.js';

const PASSWORD_KEY = 'admin.password';

export class SqlAdminStore implements AdminStore {
  constructor(private readonly db: Database) {}

  async passwordHash(): Promise<string | undefined> {
    const [row] = await this.db.execute<{ value: string }>('select value from settings where key = ?', [PASSWORD_KEY]);
    return row?.value;
  }

  async setPasswordHash(hash: string): Promise<void> {
    await this.db.execute(
      'insert into settings (key, value, updated_at) values (?, ?, now()) on conflict (key) do update set value = excluded.value, updated_at = now()',
      [PASSWORD_KEY, hash],
    );
  }

  async addSession(tokenDigest: string, session: AdminSession): Promise<void> {
    await this.db.execute('insert into admin_sessions (token_hash, csrf_token, expires_at) values (?, ?, ?)', [tokenDigest, session.csrfToken, session.expiresAt]);
  }

  async session(tokenDigest: string, now: Date): Promise<AdminSession | null> {
    const [row] = await this.db.execute<{ csrf_token: string; expires_at: Date }>(
      'select csrf_token, expires_at from admin_sessions where token_hash = ? and expires_at > ?',
      [tokenDigest, now],
    );
    return row ? { csrfToken: row.csrf_token, expiresAt: new Date(row.expires_at) } : null;
  }

  async removeSession(tokenDigest: string): Promise<void> {
    await this.db.execute('delete from admin_sessions where token_hash = ?', [tokenDigest]);
  }

  async removeAllSessions(): Promise<void> {
    await this.db.execute('delete from admin_sessions');
  }
}
