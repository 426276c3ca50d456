import type { AdminSocketClient } from '../adapters/http/admin-socket/admin-socket-client.js';
import { adminSocketPath } from '../adapters/http/admin-socket/admin-socket-path.js';
import { EmbeddedDatabaseBusy, EmbeddedLock } from '../adapters/persistence/embedded-lock.js';
import type { CliIo } from './cli-io.js';
import { connectToServer } from './database-access.js';
import type { DatabaseTarget } from './database-target.js';

type ServerTarget = Extract<DatabaseTarget, { kind: 'server' }>;
type DirectTarget = Exclude<DatabaseTarget, ServerTarget>;

/** The two ways of a command that uses the database: through the running server, or on the database itself. */
export interface DatabaseWays<T> {
  /** Through the admin socket of the server that holds the embedded database. */
  readonly server: (client: AdminSocketClient, server: ServerTarget) => Promise<T>;
  /**
   * On PostgreSQL, or on the embedded database no server held when the command looked. On the
   * embedded database it must do nothing that lasts before the database is open (or before
   * noServerMeanwhile, for a way that does not open it): a server that takes the database in
   * between makes it fail, and the server way runs instead.
   */
  readonly direct: (target: DirectTarget) => Promise<T>;
}

/**
 * The server that took the embedded database in `dataDir` after the command looked at its lock
 * file and before it opened the database itself (a server starting then): what the open failed
 * with names it (EmbeddedDatabaseBusy, the cause of the DATA_DIR error). Undefined for any other
 * failure, for a holder on another host (its admin socket is not this machine's) and for a lock
 * file copied from another directory (its holder serves that one).
 */
const serverThatTookOver = (error: unknown, dataDir: string): ServerTarget | undefined => {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    // By its name, not instanceof: the database modules are imported dynamically, and where this
    // module was required instead (under the test runner) the lock's module is loaded twice, as
    // two classes.
    if (cause.name === 'EmbeddedDatabaseBusy') {
      const busy = cause as EmbeddedDatabaseBusy;
      const local = busy.host === undefined && busy.copiedFrom === undefined && busy.dataDir === dataDir && Number.isInteger(busy.pid);
      return local ? { kind: 'server', dataDir, pid: busy.pid, socketPath: adminSocketPath(dataDir) } : undefined;
    }
  }
  return undefined;
};

/**
 * For a direct way that does not open the embedded database (`reload` there only checks the
 * files): fails as the open would when a server took the database since the command looked, so
 * that onDatabase goes through that server instead.
 */
export const noServerMeanwhile = async (target: DirectTarget): Promise<void> => {
  if (target.kind !== 'embedded') return;
  const held = await new EmbeddedLock(target.dataDir).holding().catch(() => null);
  if (held !== null) throw new EmbeddedDatabaseBusy(held.pid, target.dataDir, undefined, undefined, held.copiedFrom);
};

/**
 * Runs a command's work on `target`, the way it was found, and the one path every command that
 * uses the database goes: through the running server's admin socket, or on the database itself.
 * A server that starts between the command's look at the lock file and its open (the open then
 * fails: the database is in use by it) is gone through instead, saying so on stderr: its admin
 * socket opens at the end of its start, and connectToServer waits for it (up to SERVER_WAIT_MS).
 * Nothing was done on the database before the open failed, so the work runs once.
 */
export const onDatabase = async <T>(io: CliIo, target: DatabaseTarget, ways: DatabaseWays<T>): Promise<T> => {
  if (target.kind === 'server') return ways.server(await connectToServer(target, io), target);
  try {
    return await ways.direct(target);
  } catch (error) {
    const server = target.kind === 'embedded' ? serverThatTookOver(error, target.dataDir) : undefined;
    if (server === undefined) throw error;
    io.err.write(`a server (pid ${server.pid}) took the embedded database in ${server.dataDir} meanwhile (it is starting): going through it instead\n`);
    return ways.server(await connectToServer(server, io), server);
  }
};
