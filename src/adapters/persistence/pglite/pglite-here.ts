import { refuseFileAsDataDir } from './data-dir-check.js';
import type { EmbeddedPglite } from './pglite-thread.js';
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
  const [{ PGlite }, { DurableNodeFS, durableStartParams }] = await Promise.all([import('@electric-sql/pglite'), import('./durable-node-fs.js')]);
  let db: InstanceType<typeof PGlite>;
  try {
    db = await PGlite.create({ dataDir, fs: new DurableNodeFS(dataDir), startParams: durableStartParams(settings) });
  } catch (error) {
    // PGlite's file system throws `{name: 'ErrnoError', errno}`, no Error: worded as on the thread.
    const cause = error instanceof Error ? error : fromPortableError(toPortableError(error));
    throw new Error(`Cannot open the embedded database in ${dataDir}: ${cause.message}`, { cause });
  }
  let closing: Promise<void> | undefined;
  return {
    get ready() {
      return db.ready;
    },
    waitReady: db.waitReady,
    get closed() {
      return db.closed;
    },
    query: (sql, params, options) => db.query(sql, params, options),
    exec: (sql) => db.exec(sql),
    transaction: (callback) => db.transaction(callback),
    listen: (channel, callback) => db.listen(channel, callback),
    close: () => {
      closing ??= db.closed ? Promise.resolve() : db.close();
      return closing;
    },
    // The statements run on this thread: its own event loop is the database's.
    eventLoopUtilization: () => performance.eventLoopUtilization(),
  };
};
