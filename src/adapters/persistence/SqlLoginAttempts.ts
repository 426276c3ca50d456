import type { LoginAttempts } from '../../ports/LoginAttempts.js';
import type { Database } from './Database.js';

/** Ended windows deleted per counted attempt at most. */
const PRUNE_BATCH = 100;
/** The count stops growing here (an attempt past the limit is refused all the same). */
const MAX_COUNT = 1_000_000;

/**
 * Login attempts in `admin_login_attempts`, one row per client. Counting is one
 * `insert … on conflict do update … returning`: the row lock makes concurrent attempts, from
 * any replica, take distinct numbers. Ended windows are deleted in a statement of their own,
 * skipping rows another statement holds, so it never waits and never deadlocks with a count.
 */
export class SqlLoginAttempts implements LoginAttempts {
  constructor(private readonly db: Database) {}

  async count(client: string, now: Date, windowMs: number): Promise<number> {
    const ended = new Date(now.getTime() - windowMs);
    await this.db.execute(
      `delete from admin_login_attempts where client in (
         select client from admin_login_attempts where window_started_at <= ? order by window_started_at limit ${PRUNE_BATCH} for update skip locked)`,
      [ended],
    );
    const [row] = await this.db.execute<{ attempts: number }>(
      `insert into admin_login_attempts as a (client, attempts, window_started_at) values (?, 1, ?)
       on conflict (client) do update set
         attempts = case when a.window_started_at <= ? then 1 else least(a.attempts + 1, ${MAX_COUNT}) end,
         window_started_at = case when a.window_started_at <= ? then excluded.window_started_at else a.window_started_at end
       returning attempts`,
      [client, now, ended, ended],
    );
    return Number(row.attempts);
  }

  async clear(client: string): Promise<void> {
    await this.db.execute('delete from admin_login_attempts where client = ?', [client]);
  }
}
