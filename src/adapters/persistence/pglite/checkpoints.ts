/**
 * Checkpoints for the embedded database. PGlite runs PostgreSQL as one single-user process, with
 * no checkpointer: PostgreSQL then checkpoints only at shutdown (neither `checkpoint_timeout`
 * nor `max_wal_size` starts one; the WAL-size check runs only under a postmaster). Without this,
 * the write-ahead log of a service that runs for months grew by every byte ever written (pg_wal
 * at 433 MB after 420 MB of inserts, never recycled), and a restart after a crash replayed all of
 * it (2.7 s for those 433 MB, against 0.55 s for a clean open; bench/README.md, "Measurements
 * behind the code"). The service therefore asks for a checkpoint itself, as PostgreSQL's
 * checkpointer would: once the log has grown by `walBytes` since the last one, or after
 * `maxAgeMs` when anything was written. PostgreSQL then recycles the old segments, so pg_wal stays
 * near `min_wal_size` (80 MB) and a crash replays at most about `walBytes`.
 */

/** When to checkpoint. */
export interface CheckpointPolicy {
  /** How often the log's growth is looked at (one short statement on the database's thread). */
  readonly checkEveryMs: number;
  /** Checkpoint once the log has grown by this much since the last checkpoint's redo point. */
  readonly walBytes: number;
  /** Checkpoint once the last one is this old, when anything was written since. */
  readonly maxAgeMs: number;
}

/**
 * The service's policy: PostgreSQL's own `checkpoint_timeout` (5 min), and 64 MB of log, which a
 * checkpoint on this database writes out in 60–80 ms (measured on the 2-core machine, 8 MB of
 * shared buffers).
 */
export const SERVICE_CHECKPOINTS: CheckpointPolicy = { checkEveryMs: 5_000, walBytes: 64 * 1024 * 1024, maxAgeMs: 5 * 60_000 };

/**
 * The log written since the last checkpoint's record, beyond which something was written: the
 * checkpoint record itself and a little more (an idle database writes nothing, PGlite's own
 * transactions a few bytes).
 */
const NOTHING_WRITTEN_BYTES = 512;

interface Queryable {
  query<T>(sql: string): Promise<{ rows: T[] }>;
  exec(sql: string): Promise<unknown>;
}

/** Checkpoints `db` when `policy` says one is due; resolves true when it did. */
export const checkpointIfDue = async (db: Queryable, policy: CheckpointPolicy): Promise<boolean> => {
  const { rows } = await db.query<{ since_redo: string; since_record: string; age_ms: number }>(
    `select (pg_current_wal_insert_lsn() - redo_lsn)::text as since_redo,
            (pg_current_wal_insert_lsn() - checkpoint_lsn)::text as since_record,
            extract(epoch from clock_timestamp() - checkpoint_time)::float8 * 1000 as age_ms
       from pg_control_checkpoint()`,
  );
  const state = rows[0];
  if (state === undefined) return false;
  const written = Number(state.since_record) > NOTHING_WRITTEN_BYTES;
  const due = Number(state.since_redo) >= policy.walBytes || (written && state.age_ms >= policy.maxAgeMs);
  if (!due) return false;
  await db.exec('CHECKPOINT');
  return true;
};
