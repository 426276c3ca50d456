import { refuseFileAsDataDir } from './data-dir-check.js';
import type { DatabaseUnavailable } from '../../shared/database-unavailable.js';
import { panicFailure } from './panic.js';
import type { EmbeddedPglite, PgliteTransaction } from './pglite-thread.js';
import { fromPortableError, toPortableError } from './protocol.js';

/**
 * Opens the embedded database on the calling thread, for a process that opens it for a moment: a
 * CLI command runs a few statements and exits, and its main thread waits for the database
 * meanwhile. PgliteThread's own thread costs a start of its own — a second copy of Node.js's
 * modules and of PGlite's JavaScript — which for such a command was more than the statements it
 * runs: `keys list` with no server took 1 017 ms (1 350 ms of CPU) through the thread, 848 ms
 * (1 000 ms) here (bench/README.md, "Measurements behind the code"). The service keeps the thread:
 * its statements would otherwise hold the HTTP event loop.
 *
 * Durable as on the thread (DurableNodeFS, durableStartParams); a failure to open says which
 * directory and why, in the same words.
 */
export const openPgliteHere = async (dataDir: string, settings: Readonly<Record<string, string>> = {}): Promise<EmbeddedPglite> => {
  await refuseFileAsDataDir(dataDir);
  const [{ PGlite }, { DurableNodeFS, durableStartParams }, { PreparedQueries }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('./durable-node-fs.js'),
    import('./prepared-queries.js'),
  ]);
  let db: InstanceType<typeof PGlite>;
  try {
    db = await PGlite.create({ dataDir, fs: new DurableNodeFS(dataDir), startParams: durableStartParams(settings) });
  } catch (error) {
    // PGlite's file system throws `{name: 'ErrnoError', errno}`, no Error: worded as on the thread.
    const cause = error instanceof Error ? error : fromPortableError(toPortableError(error));
    throw new Error(`Cannot open the embedded database in ${dataDir}: ${cause.message}`, { cause });
  }
  // Statements with values, as db.query runs them (PGlite's own transaction() is not used here,
  // so each is a statement outside one for PGlite, as before).
  const prepared = new PreparedQueries(db);
  let closing: Promise<void> | undefined;
  // After a PANIC nothing more is sent to PGlite (panicFailure): it would leave the statement
  // unanswered and the command waiting for ever. That statement rejects with the PANIC, every
  // later one (and the rollback of the transaction it was in) with the failure.
  let failure: DatabaseUnavailable | undefined;
  const guarded = async <T>(statement: () => Promise<T>): Promise<T> => {
    if (failure !== undefined) throw failure;
    try {
      return await statement();
    } catch (error) {
      failure ??= panicFailure(error, 'run the command again');
      throw error;
    }
  };
  // Transactions are made here rather than by PGlite's own transaction(), which rolls back by
  // itself when its callback throws, also after a PANIC. One at a time; a statement from outside
  // waits until the transaction open has ended, as PGlite's own would.
  let transactions: Promise<void> = Promise.resolve();
  const outside = async <T>(statement: () => Promise<T>): Promise<T> => {
    await transactions;
    return guarded(statement);
  };
  const transaction = async <T>(callback: (tx: PgliteTransaction) => Promise<T>): Promise<T> => {
    const before = transactions;
    let ended!: () => void;
    transactions = new Promise((resolve) => (ended = resolve));
    try {
      await before;
      await guarded(() => db.exec('BEGIN'));
      let closed = false;
      const open = (): void => {
        if (closed) throw new Error('Transaction is closed');
      };
      const tx: PgliteTransaction = {
        query: async (sql, params, options) => {
          open();
          return guarded(() => prepared.query(sql, params, options));
        },
        exec: async (sql) => {
          open();
          return guarded(() => db.exec(sql)).finally(() => prepared.ranElsewhere(sql));
        },
        rollback: async () => {
          open();
          await guarded(() => db.exec('ROLLBACK'));
          closed = true;
        },
        get closed() {
          return closed;
        },
      };
      let result: T;
      try {
        result = await callback(tx);
      } catch (error) {
        if (!closed) {
          closed = true;
          if (failure === undefined) await guarded(() => db.exec('ROLLBACK'));
        }
        throw error;
      }
      if (!closed) {
        closed = true;
        await guarded(() => db.exec('COMMIT'));
      }
      return result;
    } finally {
      ended();
    }
  };
  return {
    get ready() {
      return db.ready;
    },
    waitReady: db.waitReady,
    get closed() {
      return db.closed || failure !== undefined;
    },
    query: (sql, params, options) => outside(() => prepared.query(sql, params, options)),
    exec: (sql) => outside(() => db.exec(sql)).finally(() => prepared.ranElsewhere(sql)),
    transaction,
    listen: async (channel, callback) => {
      const unsubscribe = await outside(() => db.listen(channel, callback));
      return () => guarded(unsubscribe);
    },
    close: () => {
      // After a PANIC PGlite is left as it is (closing it would not end either): the process exits.
      closing ??= db.closed || failure !== undefined ? Promise.resolve() : db.close();
      return closing;
    },
    // The statements run on this thread: its own event loop is the database's.
    eventLoopUtilization: () => performance.eventLoopUtilization(),
  };
};
