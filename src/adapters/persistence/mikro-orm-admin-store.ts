import { createHash } from 'node:crypto';
import { raw, sql } from '@mikro-orm/core';
import type { AdminSession, AdminStore } from '../../ports/admin-store.js';
import type { Database } from './database.js';
import { AdminSessionEntity } from './entities/admin-session-entity.js';
import { SettingEntity } from './entities/setting-entity.js';

const PASSWORD_KEY = 'admin.password';

/** The digest a session keeps of the password hash its login checked: SHA-256 of its UTF-8, in hex (as `STORED_DIGEST` computes it in SQL). */
const passwordDigest = (hash: string): string => createHash('sha256').update(hash, 'utf8').digest('hex');

/** The digest of the stored password hash, computed in the statement that reads the session (null when none is stored). */
const STORED_DIGEST = "(select encode(sha256(convert_to(value, 'UTF8')), 'hex') from settings where key = ?)";

/**
 * The admin password hash (a row of `settings`) and the admin UI's sessions, through MikroORM.
 * A session keeps the digest of the password hash its login checked; reading it compares that
 * with the digest of the stored hash in the same statement, so a session counts only while its
 * password is the stored one, whatever a concurrent password change does.
 */
export class MikroOrmAdminStore implements AdminStore {
  constructor(private readonly db: Database) {}

  async passwordHash(): Promise<string | undefined> {
    const row = await this.db.orm.em.fork().findOne(SettingEntity, { key: PASSWORD_KEY });
    return row?.value;
  }

  async setPasswordHash(hash: string): Promise<void> {
    await this.db.orm.em.fork().upsert(SettingEntity, { key: PASSWORD_KEY, value: hash, updatedAt: sql.now() });
  }

  async addSession(tokenDigest: string, session: AdminSession, passwordHash: string): Promise<void> {
    await this.db.orm.em.fork().insert(AdminSessionEntity, {
      tokenHash: tokenDigest,
      csrfToken: session.csrfToken,
      expiresAt: session.expiresAt,
      passwordDigest: passwordDigest(passwordHash),
    });
  }

  async session(tokenDigest: string, now: Date): Promise<AdminSession | null> {
    const rows: Array<{ csrf_token: string; expires_at: Date | string }> = await this.db.orm.em
      .fork()
      .createQueryBuilder(AdminSessionEntity, 's')
      .select(['csrfToken', 'expiresAt'])
      .where({ tokenHash: tokenDigest, expiresAt: { $gt: now } })
      .andWhere(raw(`s.password_digest = ${STORED_DIGEST}`, [PASSWORD_KEY]))
      .execute('all', false);
    return rows.length === 0 ? null : { csrfToken: rows[0].csrf_token, expiresAt: new Date(rows[0].expires_at) };
  }

  async removeSession(tokenDigest: string): Promise<void> {
    await this.db.orm.em.fork().nativeDelete(AdminSessionEntity, { tokenHash: tokenDigest });
  }

  async removeAllSessions(): Promise<void> {
    await this.db.orm.em.fork().nativeDelete(AdminSessionEntity, {});
  }

  async deleteExpiredSessions(now: Date, limit: number): Promise<number> {
    const em = this.db.orm.em.fork();
    const expired = em
      .createQueryBuilder(AdminSessionEntity, 'expired')
      .select('tokenHash')
      .where({ expiresAt: { $lte: now } })
      .orderBy({ expiresAt: 'asc' })
      .limit(limit)
      .getNativeQuery();
    return (
      await em
        .createQueryBuilder(AdminSessionEntity)
        .delete({ tokenHash: { $in: expired } })
        .execute('run')
    ).affectedRows;
  }
}
