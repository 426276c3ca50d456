import { sql } from '@mikro-orm/core';
import { AdminSessionEntity } from './entities/admin-session-entity.js';
import { SettingEntity } from './entities/setting-entity.js';
const PASSWORD_KEY = 'admin.password';
/** The admin password hash (a row of `settings`) and the admin UI's sessions, through MikroORM. */
export class MikroOrmAdminStore {
    db;
    constructor(db) {
        this.db = db;
    }
    async passwordHash() {
        const row = await this.db.orm.em.fork().findOne(SettingEntity, { key: PASSWORD_KEY });
        return row?.value;
    }
    async setPasswordHash(hash) {
        await this.db.orm.em.fork().upsert(SettingEntity, { key: PASSWORD_KEY, value: hash, updatedAt: sql.now() });
    }
    async addSession(tokenDigest, session) {
        await this.db.orm.em.fork().insert(AdminSessionEntity, { tokenHash: tokenDigest, csrfToken: session.csrfToken, expiresAt: session.expiresAt });
    }
    async session(tokenDigest, now) {
        const row = await this.db.orm.em.fork().findOne(AdminSessionEntity, { tokenHash: tokenDigest, expiresAt: { $gt: now } });
        return row ? { csrfToken: row.csrfToken, expiresAt: row.expiresAt } : null;
    }
    async removeSession(tokenDigest) {
        await this.db.orm.em.fork().nativeDelete(AdminSessionEntity, { tokenHash: tokenDigest });
    }
    async removeAllSessions() {
        await this.db.orm.em.fork().nativeDelete(AdminSessionEntity, {});
    }
    async deleteExpiredSessions(now, limit) {
        const em = this.db.orm.em.fork();
        const expired = em
            .createQueryBuilder(AdminSessionEntity, 'expired')
            .select('tokenHash')
            .where({ expiresAt: { $lte: now } })
            .orderBy({ expiresAt: 'asc' })
            .limit(limit)
            .getNativeQuery();
        return (await em
            .createQueryBuilder(AdminSessionEntity)
            .delete({ tokenHash: { $in: expired } })
            .execute('run')).affectedRows;
    }
}
//# sourceMappingURL=mikro-orm-admin-store.js.map