import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { adminSocketPath } from '../adapters/http/admin-socket/admin-socket-path.js';
import { EmbeddedLock, EmbeddedLockUnreadable } from '../adapters/persistence/embedded-lock.js';
import { dataDirOfAnotherAccount } from './data-dir-owner.js';
import { CliFailure } from './usage-error.js';

/**
 * Which database a CLI command works on, decided the way the server decides it (DATABASE_URL
 * set: PostgreSQL; unset: the embedded database in DATA_DIR), plus, on the embedded database,
 * whether a running server holds it — then the command goes through that server's admin socket,
 * since PGlite can be opened by one process only. Light: no database module is loaded here.
 */
export type DatabaseTarget =
  | { readonly kind: 'postgresql'; readonly url: string }
  | { readonly kind: 'server'; readonly dataDir: string; readonly pid: number; readonly socketPath: string }
  | { readonly kind: 'embedded'; readonly dataDir: string; readonly exists: boolean };

const unreadableCode = (error: unknown): string | undefined => {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'EACCES' || code === 'EPERM' ? code : undefined;
};

/**
 * DATA_DIR is a copy of `original`, made with what its server left there (`found`: the lock
 * file, the admin socket), which name or reach the server of `original`: nothing is sent to that
 * server (it would work on the original's database), and the line says what to do.
 */
export const copiedDataDir = (dataDir: string, original: string, pid: number, found: string, leftovers: readonly string[]): CliFailure =>
  new CliFailure(
    `DATA_DIR: ${dataDir} is most likely a copy of ${original}, made with ${found}: process ${pid} serves ${original}, not this directory, and nothing was sent to it. ` +
      `If process ${pid} runs on ${original} only (its "agent gateway listening" log line names its dataDir), remove ${leftovers.join(' and ')} and run the command again; ` +
      'a copy made while that process ran may be inconsistent: copy a stopped DATA_DIR, or a snapshot',
  );

/**
 * @throws DataDirOfAnotherAccount (a CliFailure) when this account cannot read the lock file or
 * the database in DATA_DIR: a server of the account owning it may hold the database.
 * @throws CliFailure (copiedDataDir) when the lock file was written for another directory by the
 * live process it names: DATA_DIR is a copy, and that process serves the original.
 */
export const findDatabaseTarget = async (config: { readonly databaseUrl: string | undefined; readonly dataDir: string }): Promise<DatabaseTarget> => {
  if (config.databaseUrl !== undefined) return { kind: 'postgresql', url: config.databaseUrl };
  let held: Awaited<ReturnType<EmbeddedLock['holding']>>;
  try {
    held = await new EmbeddedLock(config.dataDir).holding();
  } catch (error) {
    if (error instanceof EmbeddedLockUnreadable) throw await dataDirOfAnotherAccount(config.dataDir, `its lock file ${error.file} (${error.code})`, error);
    throw error;
  }
  if (held?.copiedFrom !== undefined) {
    const lockFile = join(config.dataDir, 'embedded.pid');
    throw copiedDataDir(config.dataDir, held.copiedFrom, held.pid, `its lock file ${lockFile}`, [lockFile]);
  }
  if (held !== null) return { kind: 'server', dataDir: config.dataDir, pid: held.pid, socketPath: adminSocketPath(config.dataDir) };
  const version = join(config.dataDir, 'pglite', 'PG_VERSION');
  let exists: boolean;
  try {
    await stat(version);
    exists = true;
  } catch (error) {
    const code = unreadableCode(error);
    if (code !== undefined) throw await dataDirOfAnotherAccount(config.dataDir, `its database ${join(config.dataDir, 'pglite')} (${code})`, error);
    exists = false;
  }
  return { kind: 'embedded', dataDir: config.dataDir, exists };
};

/**
 * `host:port/database` of a PostgreSQL URL — never its user or password. A host given as a
 * query parameter (`?host=/var/run/postgresql`, a Unix socket) is shown as such.
 */
export const postgresLocation = (url: string): string => {
  try {
    const parsed = new URL(url);
    // As the pg driver reads it: a `host` parameter wins; a socket directory may be URL-encoded.
    const host = parsed.searchParams.get('host') ?? (parsed.hostname !== '' ? decodeURIComponent(parsed.hostname) : 'localhost');
    const port = parsed.port !== '' ? parsed.port : (parsed.searchParams.get('port') ?? '5432');
    const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
    return `${host}:${port}/${database !== '' ? database : decodeURIComponent(parsed.username)}`;
  } catch {
    // The configuration accepted it as a postgres:// URL; say no more than that.
    return 'the server DATABASE_URL names';
  }
};

/** The line every command that touches the database writes to stderr first. */
export const describeTarget = (target: DatabaseTarget): string => {
  switch (target.kind) {
    case 'postgresql':
      return `using PostgreSQL at ${postgresLocation(target.url)}`;
    case 'server':
      return `using the embedded database in ${target.dataDir} (through the running server, pid ${target.pid})`;
    case 'embedded':
      return `using the embedded database in ${target.dataDir} (not in use by a server)`;
  }
};
