import { accessSync, constants, statSync } from 'node:fs';
import { mkdir, statfs } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import type { Logger } from '../../ports/logger.js';
import type { DatabaseTimeouts } from '../shared/database-bounds.js';
import { DatabaseOpenError } from './database-open-error.js';
import { EmbeddedDatabaseBusy, EmbeddedLock } from './embedded-lock.js';
import { ensurePostgresDatabase } from './ensure-postgres-database.js';
import { foreignOwnedReason } from './foreign-owned-files.js';
import { checkPrivateDataDir, checkPrivateDataDirIfAny } from './private-data-dir.js';
import { SERVICE_CHECKPOINTS } from './pglite/checkpoints.js';
import { beginCreation, endCreation } from './pglite/creation.js';
import { type EmbeddedPglite, PgliteThread } from './pglite/pglite-thread.js';

export interface DatabaseOptions {
  /** postgres:// URL; unset opens the embedded PGlite database under `dataDir`. */
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  readonly logger: Logger;
  /** PostgreSQL: create the database when it does not exist (otherwise opening fails). */
  readonly create?: boolean;
  /**
   * The database is opened for a moment (a CLI command), not for a service: the embedded
   * database boots with small shared memory (SHORT_LIVED_SETTINGS), on the calling thread
   * (openPgliteHere) instead of a thread of its own.
   */
  readonly shortLived?: boolean;
  /**
   * Told when the embedded database's thread dies while the service runs (after it was logged):
   * nothing that needs the database works any more, and only a new start opens it again. Told
   * too when the embedded database's lock turns out taken over or removed (EmbeddedLockLost):
   * another process may have the database open. The service stops then (stopForRestart), for its
   * supervisor to start it again.
   */
  readonly onEngineFailure?: (error: Error) => void;
  /**
   * How long a service (not a short-lived opening) waits for the embedded database held by
   * another process of this machine before it gives up (BUSY_WAIT); tests shorten it.
   */
  readonly busyWait?: { readonly ms: number; readonly pollMs: number };
  /** PostgreSQL: the bounds of a connection and a statement (DATABASE_CONNECT_TIMEOUT_MS, DATABASE_QUERY_TIMEOUT_MS); DATABASE_TIMEOUTS when unset. */
  readonly timeouts?: DatabaseTimeouts;
}

/**
 * A CLI command holds the embedded database for about half a second (`keys list`): a service
 * started meanwhile waits up to 5 s for it instead of stopping with "in use by process N". A
 * process holding it longer (another service) is still refused, 5 s later.
 */
export const BUSY_WAIT = { ms: 5_000, pollMs: 100 } as const;

/**
 * PostgreSQL settings for a process that opens the embedded database for one short task. PGlite
 * allocates and zeroes its shared memory at every boot, and with the defaults (128 MB of shared
 * buffers, lock and process tables for 100 connections) that was most of the CLI's boot, spent in
 * memset (bench/README.md, "Measurements behind the code"). They apply to
 * that boot only (nothing is written to postgresql.conf); a CLI command reads and writes a few rows.
 */
export const SHORT_LIVED_SETTINGS: Readonly<Record<string, string>> = { shared_buffers: '4MB', max_connections: '5' };

/**
 * PostgreSQL settings of the embedded database for the service (docs/architecture.md, "Memory of
 * the embedded database"). PGlite's defaults are a server's: 128 MB of shared buffers, which PGlite
 * zeroes at every boot (so all of it is resident at once), and lock and process tables for 100
 * connections, while PGlite is a single session whose working set (keys, jobs, the task queue) is
 * a few MB. Measured with bench/memory.mjs: the defaults held about 470 MB RSS idle, these about
 * 235 MB (250 with 16MB of shared buffers). They apply to the boot only (nothing is written to
 * postgresql.conf).
 */
export const SERVICE_SETTINGS: Readonly<Record<string, string>> = {
  shared_buffers: '8MB',
  max_connections: '10',
  wal_buffers: '512kB',
  temp_buffers: '1MB',
  work_mem: '2MB',
  maintenance_work_mem: '16MB',
};

/**
 * Keeps the embedded database's WebAssembly on V8's baseline compiler (Liftoff) for the life of
 * this process, for the service and the CLI alike. By default V8 recompiles the functions that
 * run most with its optimising compiler on background threads: for PostgreSQL's largest functions
 * that is seconds of CPU and hundreds of MB of compilation memory, spent at every start and in the
 * first seconds of load, when the service is busiest. On the 2-core machine it took half a core
 * over the first ten seconds of a matched-webhook load, whose first second then accepted a
 * quarter as many requests, and the chat's p99 was about twice as high; once warm the two ran
 * even, the database's thread never the bottleneck there (bench/README.md, "Measurements behind
 * the code").
 * It changes how the code is compiled, not what it does; a function the baseline compiler cannot
 * compile still goes to the optimising one. The flags are read when a module is compiled and
 * instantiated, so they are set before PGlite is loaded (here, before its thread starts); they
 * are process-wide. (`--liftoff-only` would do the same but is honoured only on the command line,
 * and V8 marks it as one for testing.) PostgreSQL mode runs no WebAssembly of its own and never
 * sets them.
 */
export const keepWebAssemblyOnBaseline = (): void => setFlagsFromString('--no-wasm-dynamic-tiering --no-wasm-tier-up');

/** The engine under the ORM, open: a PostgreSQL server known to answer, or the embedded database on its thread, locked. */
export type OpenEngine =
  | { readonly engine: 'postgresql'; readonly url: string }
  | { readonly engine: 'pglite'; readonly pglite: EmbeddedPglite; readonly lock: EmbeddedLock };

/**
 * The first half of opening the database (Database.open does the rest), kept free of the ORM
 * so that the service's entry can start it before loading everything else: PGlite then boots
 * on its own thread while the main thread loads the service's modules.
 *
 * Rejects with DatabaseOpenError when the PostgreSQL server cannot be reached, refuses the
 * login or has no such database (unless `create`), or when the embedded database's
 * directory cannot be used (not writable, writable by other accounts, held by another process).
 */
export const openEngine = async (options: DatabaseOptions): Promise<OpenEngine> => (await startEngine(options)).opened;

/**
 * Takes the lock, waiting while a process of this machine holds it (a CLI command, for a
 * moment) up to `options.busyWait` (BUSY_WAIT), saying so once in the log; then the holder's
 * EmbeddedDatabaseBusy as before. A holder on another host (its lease renewed over a shared
 * file system) is not waited for.
 */
const acquireWaiting = async (lock: EmbeddedLock, options: DatabaseOptions): Promise<void> => {
  const { ms, pollMs } = options.busyWait ?? BUSY_WAIT;
  const deadline = Date.now() + ms;
  for (let told = false; ; ) {
    try {
      return await lock.acquire();
    } catch (error) {
      if (!(error instanceof EmbeddedDatabaseBusy) || error.host !== undefined || error.copiedFrom !== undefined || Date.now() >= deadline) throw error;
      if (!told) {
        options.logger.warn(
          { pid: error.pid, waitMs: ms },
          `the embedded database is in use by another process (pid ${error.pid}): waiting up to ${ms / 1000} s for it to let go (a CLI command does; another server on this DATA_DIR does not)`,
        );
        told = true;
      }
      await delay(pollMs);
    }
  }
};

/**
 * openEngine in two steps: resolves once what fails fast has been checked — the PostgreSQL
 * server answered, the embedded database's directory is locked — with the rest (PGlite's
 * boot, a second or more) still under way in `opened`.
 */
export const startEngine = async (options: DatabaseOptions): Promise<{ readonly opened: Promise<OpenEngine> }> => {
  if (options.databaseUrl !== undefined) {
    // The service still keeps the job worktrees and the commands' start marks in DATA_DIR on
    // PostgreSQL: an existing one must be private too (those who make it make it owner-only). A
    // CLI command (short-lived) uses nothing there on PostgreSQL, and is not held up by it.
    if (options.shortLived !== true) {
      try {
        await checkPrivateDataDirIfAny(options.dataDir);
      } catch (error) {
        throw dataDirError(error, options.dataDir);
      }
    }
    await ensurePostgresDatabase(options.databaseUrl, options.create ?? false, options.logger, options.timeouts?.connectMs);
    return { opened: Promise.resolve({ engine: 'postgresql', url: options.databaseUrl }) };
  }
  keepWebAssemblyOnBaseline();
  const lock = new EmbeddedLock(options.dataDir, undefined, {
    // Another process took the lock over (this one was frozen or cut off from DATA_DIR longer
    // than its lease) or removed it: that process may have the database open already.
    onLost: (error) => {
      options.logger.error(
        { err: error },
        `the embedded database's lock in ${options.dataDir} was taken over or removed: the service stops so that it never writes beside another process`,
      );
      options.onEngineFailure?.(error);
    },
  });
  const dir = join(options.dataDir, 'pglite');
  try {
    // Created owner-only when it does not exist; one that exists is used only if it is private
    // (private-data-dir.ts), checked before the lock or anything else is written in it.
    await mkdir(options.dataDir, { recursive: true, mode: 0o700 });
    await checkPrivateDataDir(options.dataDir);
    if (options.shortLived === true) await lock.acquire();
    else await acquireWaiting(lock, options);
  } catch (error) {
    throw await explainedDataDirError(error, options.dataDir);
  }
  let creation: { readonly created: boolean };
  try {
    // A new database is created under a mark, and one whose creation was interrupted is created
    // again (pglite/creation.ts).
    creation = await beginCreation(dir);
    await mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    await lock.release();
    throw await explainedDataDirError(error, options.dataDir);
  }
  const boot = async (): Promise<OpenEngine> => {
    try {
      const pglite = await bootPglite();
      if (creation.created)
        await endCreation(dir).catch(async (error: unknown) => {
          await pglite.close().catch(() => undefined);
          throw error;
        });
      return { engine: 'pglite', pglite, lock };
    } catch (error) {
      await lock.release();
      throw await explainedDataDirError(error, options.dataDir);
    }
  };
  const bootPglite = async (): Promise<EmbeddedPglite> =>
    options.shortLived
      ? await (await import('./pglite/pglite-here.js')).openPgliteHere(dir, SHORT_LIVED_SETTINGS)
      : await PgliteThread.open(
          dir,
          (error) => {
            options.logger.error({ err: error }, 'the embedded database stopped: every request that needs it fails until the service restarts');
            options.onEngineFailure?.(error);
          },
          SERVICE_SETTINGS,
          {
            ...SERVICE_CHECKPOINTS,
            onError: (error) =>
              options.logger.warn({ err: error }, 'the embedded database could not checkpoint: its write-ahead log grows until a checkpoint succeeds'),
            onCheckpoint: () => options.logger.debug({}, 'the embedded database checkpointed'),
          },
        );
  return { opened: boot() };
};

/** Closes what openEngine opened. Idempotent. */
export const closeEngine = async (open: OpenEngine): Promise<void> => {
  if (open.engine === 'postgresql') return;
  await open.pglite.close();
  await open.lock.release();
};

/**
 * dataDirError, unless files of another account in DATA_DIR are in the way: PGlite says no more
 * than `Aborted()` when it cannot open one, so the line names them and the `chown` that fixes it.
 */
const explainedDataDirError = async (error: unknown, dataDir: string): Promise<DatabaseOpenError> => {
  if (error instanceof EmbeddedDatabaseBusy) return dataDirError(error, dataDir);
  const foreign = await foreignOwnedReason(dataDir).catch(() => undefined);
  if (foreign !== undefined) return new DatabaseOpenError('dataDir', `Cannot open the embedded database: ${foreign}`, undefined, { cause: error });
  const plain = dataDirError(error, dataDir);
  // A directory that may not be written is said so whatever space is left (a small read-only mount).
  if (unwritableExplained(error as NodeJS.ErrnoException, dataDir) !== undefined) return plain;
  const free = await freeBytes(dataDir);
  if (free === undefined || free >= LOW_SPACE_BYTES) return plain;
  return new DatabaseOpenError(
    'dataDir',
    `${plain.message}: the disk that holds ${dataDir} is full or nearly (${(free / 1024 / 1024).toFixed(1)} MB free); free space there, then start again (what was committed is kept)`,
    undefined,
    { cause: error },
  );
};

/**
 * Below this much free space on DATA_DIR's file system, a failure to open the embedded database
 * is said to be the full disk's: PostgreSQL needs a new 16 MB segment of its log to recover or
 * to start writing, and a new database needs about 40 MB. PGlite itself says no more than
 * `ErrnoError (errno 51)` (WASI's ENOSPC) or `PGlite failed to initialize properly` then.
 */
const LOW_SPACE_BYTES = 64 * 1024 * 1024;

/** The bytes this process may still write on the file system of `dir`; undefined when that cannot be told. */
const freeBytes = async (dir: string): Promise<number | undefined> => {
  try {
    const { bavail, bsize } = await statfs(dir);
    return bavail * bsize;
  } catch {
    return undefined;
  }
};

/** The embedded database's directory cannot be used: one line naming it and why. */
const dataDirError = (error: unknown, dataDir: string): DatabaseOpenError => {
  if (error instanceof EmbeddedDatabaseBusy) return new DatabaseOpenError('dataDir', error.message, undefined, { cause: error });
  const { code, message } = error as NodeJS.ErrnoException;
  if (code === undefined) return new DatabaseOpenError('dataDir', message, undefined, { cause: error });
  // mkdir of a path that is a file says EEXIST, which reads as if the directory were fine.
  if ((code === 'EEXIST' || code === 'ENOTDIR') && statSync(dataDir, { throwIfNoEntry: false })?.isFile())
    return new DatabaseOpenError('dataDir', `${dataDir} is a file, not a directory: remove it or choose another DATA_DIR`, undefined, { cause: error });
  const unwritable = unwritableExplained(error as NodeJS.ErrnoException, dataDir);
  if (unwritable !== undefined)
    return new DatabaseOpenError('dataDir', `cannot use ${dataDir} for the embedded database (${unwritable.error}): ${unwritable.reason}`, undefined, {
      cause: error,
    });
  // Node's file errors say `ENOSPC: no space left on device, write`: the code and its words suffice.
  return new DatabaseOpenError('dataDir', `cannot use ${dataDir} for the embedded database (${message.split(',')[0]})`, undefined, { cause: error });
};

/** `path` if it exists, else the nearest directory above it that does (where it would be created). */
const nearestExisting = (path: string): string => {
  const found = (at: string): boolean => {
    try {
      return statSync(at, { throwIfNoEntry: false }) !== undefined;
    } catch {
      return false; // a directory above it may not be searched
    }
  };
  let where = path;
  while (!found(where) && dirname(where) !== where) where = dirname(where);
  return where;
};

/**
 * What to say when this account may not write where DATA_DIR needs it (EACCES, EPERM) or the
 * file system is read-only (EROFS): `error`, Node's message, which names the call and the path
 * (`EACCES: permission denied, mkdir '/srv/agw/data'`), and `reason`: the place to look at — the
 * path itself when it exists, else the nearest directory above it that does (where the missing
 * one would be created) — the account, and what to do. A recursive mkdir on a read-only file
 * system says ENOENT (Node), which would send the operator looking for a missing directory: the
 * nearest existing directory is asked whether it may be written, and its answer is said
 * instead. Undefined for any other error.
 */
export const unwritableExplained = (
  error: NodeJS.ErrnoException,
  dataDir: string,
  uid: number | undefined = process.getuid?.(),
): { readonly error: string; readonly reason: string } | undefined => {
  if (typeof error !== 'object' || error === null) return undefined;
  let cause = error;
  if (error.code === 'ENOENT' && error.syscall === 'mkdir') {
    try {
      accessSync(nearestExisting(error.path ?? dataDir), constants.W_OK);
      return undefined;
    } catch (refusal) {
      cause = refusal as NodeJS.ErrnoException;
    }
  }
  if (cause.code !== 'EACCES' && cause.code !== 'EPERM' && cause.code !== 'EROFS') return undefined;
  const where = nearestExisting(cause.path ?? dataDir);
  if (cause.code === 'EROFS') return { error: cause.message, reason: `${where} is on a read-only file system; choose a DATA_DIR on a writable one` };
  const account = uid === undefined ? "this process's account" : `this process's account (uid ${uid}${accountName(uid)})`;
  let place = `in ${where}`;
  try {
    if (!statSync(where).isDirectory()) place = where;
  } catch {
    // not to be looked at: named as a directory
  }
  return {
    error: cause.message,
    reason: `${account} may not write ${place}; run the service as the account that owns it, give that account a directory of its own (owner-only: chmod 700), or choose another DATA_DIR`,
  };
};

/** `, name` for this process's uid when it has a name in the account database, else nothing. */
const accountName = (uid: number): string => {
  try {
    const { username } = userInfo();
    return process.getuid?.() === uid && username !== '' ? `, ${username}` : '';
  } catch {
    return '';
  }
};
