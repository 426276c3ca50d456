import type { PollerLease } from '../../ports/poller-lease.js';
import type { Database } from './database.js';

/**
 * Leases in `poller_leases`, one row per name: an upsert that only takes the row when it is
 * free, expired or the holder's own, so that PostgreSQL's row lock decides between replicas
 * (the same on PGlite, where one process holds the database).
 */
export class MikroOrmPollerLease implements PollerLease {
  constructor(private readonly db: Database) {}

  async acquire(name: string, holder: string, now: Date, ttlMs: number): Promise<boolean> {
    const rows = (await this.db.orm.em.getConnection().execute(
      `insert into poller_leases (name, holder, expires_at) values (?, ?, ?)
       on conflict (name) do update set holder = excluded.holder, expires_at = excluded.expires_at
       where poller_leases.holder is null or poller_leases.holder = excluded.holder or poller_leases.expires_at <= ?
       returning holder`,
      [name, holder, new Date(now.getTime() + ttlMs), now],
    )) as Array<{ holder: string }>;
    return rows.length === 1;
  }

  async cursor(name: string): Promise<string | undefined> {
    const rows = (await this.db.orm.em.getConnection().execute('select cursor from poller_leases where name = ?', [name])) as Array<{
      cursor: string | null;
    }>;
    return rows[0]?.cursor ?? undefined;
  }

  async advance(name: string, holder: string, cursor: string, now: Date): Promise<boolean> {
    const rows = (await this.db.orm.em
      .getConnection()
      .execute('update poller_leases set cursor = ? where name = ? and holder = ? and expires_at > ? returning name', [cursor, name, holder, now])) as Array<{
      name: string;
    }>;
    return rows.length === 1;
  }

  async release(name: string, holder: string): Promise<void> {
    await this.db.orm.em.getConnection().execute('update poller_leases set holder = null, expires_at = null where name = ? and holder = ?', [name, holder]);
  }
}
