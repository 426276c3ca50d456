/**
 * Leases in `poller_leases`, one row per name: an upsert that only takes the row when it is
 * free, expired or the holder's own, so that PostgreSQL's row lock decides between replicas
 * (the same on PGlite, where one process holds the database).
 */
export class MikroOrmPollerLease {
    db;
    constructor(db) {
        this.db = db;
    }
    async acquire(name, holder, now, ttlMs) {
        const rows = (await this.db.orm.em.getConnection().execute(`insert into poller_leases (name, holder, expires_at) values (?, ?, ?)
       on conflict (name) do update set holder = excluded.holder, expires_at = excluded.expires_at
       where poller_leases.holder is null or poller_leases.holder = excluded.holder or poller_leases.expires_at <= ?
       returning holder`, [name, holder, new Date(now.getTime() + ttlMs), now]));
        return rows.length === 1;
    }
    async cursor(name) {
        const rows = (await this.db.orm.em.getConnection().execute('select cursor from poller_leases where name = ?', [name]));
        return rows[0]?.cursor ?? undefined;
    }
    async advance(name, holder, cursor, now) {
        const rows = (await this.db.orm.em
            .getConnection()
            .execute('update poller_leases set cursor = ? where name = ? and holder = ? and expires_at > ? returning name', [cursor, name, holder, now]));
        return rows.length === 1;
    }
    async release(name, holder) {
        await this.db.orm.em.getConnection().execute('update poller_leases set holder = null, expires_at = null where name = ? and holder = ?', [name, holder]);
    }
}
//# sourceMappingURL=mikro-orm-poller-lease.js.map