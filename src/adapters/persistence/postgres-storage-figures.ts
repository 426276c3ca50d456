import type { StorageFigures, TableSize } from '../../ports/storage-figures.js';
import type { Database } from './database.js';

/**
 * The service's tables (every table its migrations create), in the order the health page
 * lists them. `pgboss.job` is the task queue's table (pg-boss keeps it in its own schema, one
 * partition per queue).
 */
export const SERVICE_TABLES: readonly string[] = [
  'api_keys',
  'jobs',
  'job_merge_commits',
  'idempotency_keys',
  'action_runs',
  'inbound_requests',
  'trigger_lanes',
  'approvals',
  'schedule_runs',
  'codehost_deliveries',
  'poller_leases',
  'chat_turns',
  'chat_album_items',
  'admin_sessions',
  'admin_login_attempts',
  'settings',
  'pgboss.job',
];

interface Row {
  name: string;
  tuples: number | string | null;
  unknown: boolean;
  live: number | string | null;
  bytes: number | string;
}

/**
 * Each table's leaves: the table itself, or every partition of a partitioned one. The row
 * estimate is `pg_class.reltuples` (-1 until the table is first analyzed; then the statistics'
 * live-row count stands in while it is above 0), the size `pg_total_relation_size`.
 */
const sizesQuery = (count: number): string => `
  with wanted(name, ord) as (values ${Array.from({ length: count }, (_, i) => `(?::text, ${i})`).join(', ')}),
  leaves as (
    select w.name, w.ord, coalesce(p.relid, r.oid) as relid
    from wanted w
    join pg_class r on r.oid = to_regclass(w.name)
    left join lateral pg_partition_tree(r.oid) p on true
    where p.relid is null or p.isleaf
  )
  select l.name, sum(greatest(c.reltuples, 0)) as tuples, bool_and(c.reltuples < 0) as unknown,
    sum(s.n_live_tup) as live, sum(pg_total_relation_size(l.relid)) as bytes
  from leaves l
  join pg_class c on c.oid = l.relid
  left join pg_stat_all_tables s on s.relid = l.relid
  group by l.name, l.ord
  order by l.ord`;

/** Table sizes from the PostgreSQL catalog (PGlite and PostgreSQL alike). */
export class PostgresStorageFigures implements StorageFigures {
  constructor(
    private readonly db: Database,
    private readonly tables: readonly string[] = SERVICE_TABLES,
  ) {}

  async tableSizes(): Promise<TableSize[]> {
    const rows = (await this.db.orm.em.getConnection().execute(sizesQuery(this.tables.length), [...this.tables])) as Row[];
    return rows.map((row) => {
      const live = row.live === null ? 0 : Number(row.live);
      return {
        table: row.name,
        rowsEstimate: !row.unknown ? Math.round(Number(row.tuples)) : live > 0 ? live : null,
        bytes: Number(row.bytes),
      };
    });
  }
}
