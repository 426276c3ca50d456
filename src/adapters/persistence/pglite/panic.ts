import { DatabaseUnavailable } from '../../shared/database-unavailable.js';

/**
 * The embedded database's failure when `error` is PostgreSQL's PANIC (a write of its log that
 * failed: the disk full, an I/O error); undefined for any other error. A server would end every
 * session and recover from its log at once; PGlite's single process goes on instead, with its
 * state left halfway, and the next statement is never answered (measured: `could not write to
 * file "pg_wal/xlogtemp.42": No space left on device`, then every statement waited for ever, and
 * freeing space changed nothing). Whoever runs PGlite therefore sends it nothing more after one
 * and refuses every statement with this error, which says the cause and, on a full disk, what to
 * do (`again`: start the service again, run the command again). PgliteThread and
 * openPgliteHere both use it.
 */
export const panicFailure = (error: unknown, again: string): DatabaseUnavailable | undefined => {
  if (typeof error !== 'object' || error === null || (error as { severity?: unknown }).severity !== 'PANIC') return undefined;
  const { code, message } = error as { code?: unknown; message?: unknown };
  const full = code === '53100'; // disk_full
  return new DatabaseUnavailable(
    `The embedded database stopped after a PANIC: ${String(message)}${full ? `: free space on the disk that holds DATA_DIR, then ${again}` : ''}`,
    { cause: error },
  );
};
