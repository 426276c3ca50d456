import { LockMode, raw } from '@mikro-orm/core';
import type { LoginAttempts, LoginWindow } from '../../ports/login-attempts.js';
import type { Database } from './database.js';
import { AdminLoginAttemptEntity } from './entities/admin-login-attempt-entity.js';

const TABLE = 'admin_login_attempts';

/**
 * Login attempts in `admin_login_attempts`, one row per client, through MikroORM's query
 * builder. Reading a window is a plain select (no write, so a refused attempt costs no commit
 * and no fsync). Taking an attempt is one conditional `insert … on conflict do update … where
 * … returning`: the row lock makes concurrent attempts, from any replica, take distinct numbers,
 * and the `where` leaves a row that holds `max` attempts unchanged (no row comes back). Ended
 * windows are deleted by deleteEnded alone, skipping rows another statement holds, so it never
 * waits and never deadlocks with a take.
 */
export class MikroOrmLoginAttempts implements LoginAttempts {
  constructor(private readonly db: Database) {}

  async current(client: string, now: Date, windowMs: number): Promise<LoginWindow | null> {
    const row = await this.db.orm.em
      .fork()
      .findOne(AdminLoginAttemptEntity, { client, windowStartedAt: { $gt: new Date(now.getTime() - windowMs) } }, { fields: ['attempts', 'windowStartedAt'] });
    return row === null ? null : { attempts: row.attempts, endsAt: new Date(row.windowStartedAt.getTime() + windowMs) };
  }

  async take(client: string, now: Date, windowMs: number, max: number): Promise<LoginWindow | null> {
    const ended = new Date(now.getTime() - windowMs);
    // The update depends on the stored row (a window that ended starts over), which the ORM's
    // upsert cannot say: its merge takes the inserted values. The CASE expressions and the
    // condition go in as parameterised raw fragments of the same single statement, so the
    // count stays atomic.
    const rows: Array<{ attempts: number | string; window_started_at: Date | string }> = await this.db.orm.em
      .fork()
      .createQueryBuilder(AdminLoginAttemptEntity)
      .insert({ client, attempts: 1, windowStartedAt: now })
      .onConflict('client')
      .merge({
        attempts: raw(`case when ${TABLE}.window_started_at <= ? then 1 else ${TABLE}.attempts + 1 end`, [ended]),
        windowStartedAt: raw(`case when ${TABLE}.window_started_at <= ? then excluded.window_started_at else ${TABLE}.window_started_at end`, [ended]),
      })
      .where(raw(`${TABLE}.window_started_at <= ? or ${TABLE}.attempts < ?`, [ended, max]))
      .returning(['attempts', 'windowStartedAt'])
      .execute('all', false);
    if (rows.length === 0) return null;
    return { attempts: Number(rows[0].attempts), endsAt: new Date(new Date(rows[0].window_started_at).getTime() + windowMs) };
  }

  async clear(client: string): Promise<void> {
    await this.db.orm.em.fork().nativeDelete(AdminLoginAttemptEntity, { client });
  }

  async deleteEnded(now: Date, windowMs: number, limit: number): Promise<number> {
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
    return (
      await em
        .createQueryBuilder(AdminLoginAttemptEntity)
        .delete({ client: { $in: endedWindows } })
        .execute('run')
    ).affectedRows;
  }
}
