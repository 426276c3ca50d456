import { LockMode, raw } from '@mikro-orm/core';
import { AdminLoginAttemptEntity } from './entities/admin-login-attempt-entity.js';
/** Ended windows deleted per counted attempt at most. */
const PRUNE_BATCH = 100;
/** The count stops growing here (an attempt past the limit is refused all the same). */
const MAX_COUNT = 1_000_000;
/**
 * Login attempts in `admin_login_attempts`, one row per client, through MikroORM's query
 * builder. Counting is one `insert … on conflict do update … returning`: the row lock makes
 * concurrent attempts, from any replica, take distinct numbers. Ended windows are deleted in
 * a statement of their own, skipping rows another statement holds, so it never waits and
 * never deadlocks with a count.
 */
export class MikroOrmLoginAttempts {
    db;
    constructor(db) {
        this.db = db;
    }
    async count(client, now, windowMs) {
        const ended = new Date(now.getTime() - windowMs);
        await this.deleteEnded(now, windowMs, PRUNE_BATCH);
        const em = this.db.orm.em.fork();
        // The update depends on the stored row (a window that ended starts over), which the ORM's
        // upsert cannot say: its merge takes the inserted values. The CASE expressions go in as
        // parameterised raw fragments of the same single statement, so the count stays atomic.
        const table = 'admin_login_attempts';
        const rows = await em
            .createQueryBuilder(AdminLoginAttemptEntity)
            .insert({ client, attempts: 1, windowStartedAt: now })
            .onConflict('client')
            .merge({
            attempts: raw(`case when ${table}.window_started_at <= ? then 1 else least(${table}.attempts + 1, ${MAX_COUNT}) end`, [ended]),
            windowStartedAt: raw(`case when ${table}.window_started_at <= ? then excluded.window_started_at else ${table}.window_started_at end`, [ended]),
        })
            .returning('attempts')
            .execute('all', false);
        return Number(rows[0].attempts);
    }
    async clear(client) {
        await this.db.orm.em.fork().nativeDelete(AdminLoginAttemptEntity, { client });
    }
    async deleteEnded(now, windowMs, limit) {
        const em = this.db.orm.em.fork();
        // `for update skip locked` on the sub-query's native builder: the query builder's own lock
        // mode wants an explicit transaction, which this single statement does not need.
        const endedWindows = em
            .createQueryBuilder(AdminLoginAttemptEntity, 'ended')
            .select('client')
            .where({ windowStartedAt: { $lte: new Date(now.getTime() - windowMs) } })
            .orderBy({ windowStartedAt: 'asc' })
            .limit(limit)
            .getNativeQuery()
            .lockMode(LockMode.PESSIMISTIC_PARTIAL_WRITE);
        return (await em
            .createQueryBuilder(AdminLoginAttemptEntity)
            .delete({ client: { $in: endedWindows } })
            .execute('run')).affectedRows;
    }
}
//# sourceMappingURL=mikro-orm-login-attempts.js.map