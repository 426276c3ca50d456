import { sql } from '@mikro-orm/core';
import type { AdminSession, AdminStore } from '../../ports/admin-store.js';
import type { Database } from './database.js';
import { AdminSessionEntity } from './entities/admin-session-entity.js';
import { SettingEntity } from './entities/setting-entity.js';

const PASSWORD_KEY = 'admin.password';

/** The admin password hash (a row of `settings`) and the admin UI's sessions, through MikroORM. */
export class MikroOrmAdminStore implements AdminStore {
  constructor(private readonly db: Database) {}

  async passwordHash(): Promise<string | undefined> {
    const row = await this.db.orm.em.fork().findOne(SettingEntity, { key: PASSWORD_KEY });
    return row?.value;
  }

  async setPasswordHash(hash: string): Promise<void> {
    await this.db.orm.em.fork().upsert(SettingEntity, { key: PASSWORD_KEY, value: hash, updatedAt: sql.now() });
  }

  async addSession(tokenDigest: string, session: AdminSession): Promise<void> {
    await this.db.orm.em.fork().insert(AdminSessionEntity, { tokenHash: tokenDigest, csrfToken: session.csrfToken, expiresAt: session.expiresAt });
  }

  async session(tokenDigest: string, now: Date): Promise<AdminSession | null> {
    const row = await this.db.orm.em.fork().findOne(AdminSessionEntity, { tokenHash: tokenDigest, expiresAt: { $gt: now } });
    return row ? { csrfToken: row.csrfToken, expiresAt: row.expiresAt } : null;
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
