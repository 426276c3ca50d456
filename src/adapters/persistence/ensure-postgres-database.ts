import type { Logger } from '../../ports/logger.js';
import { DATABASE_TIMEOUTS } from '../shared/database-bounds.js';
import { DatabaseOpenError } from './database-open-error.js';

/** How long start-up waits for a PostgreSQL server that does not answer (a firewalled host), unless told (DATABASE_CONNECT_TIMEOUT_MS). */
export const CONNECT_TIMEOUT_MS = DATABASE_TIMEOUTS.connectMs;

/** PostgreSQL's `invalid_catalog_name`: the database named in the URL does not exist. */
const NO_SUCH_DATABASE = '3D000';
/** `duplicate_database`: someone (another replica starting) created it first. */
const DUPLICATE_DATABASE = '42P04';

type ConnectError = Error & { code?: string };

/**
 * Connects once to the database `url` names, before the ORM and the queue open their pools,
 * so that a wrong URL stops start-up with one clear line instead of an ORM stack — and so
 * that a database that does not exist is never created silently: only when `create` is true
 * is it created (on the same server, through its `postgres` database). Throws
 * DatabaseOpenError naming the server as host:port, never the URL.
 */
export const ensurePostgresDatabase = async (url: string, create: boolean, logger: Logger, connectMs = CONNECT_TIMEOUT_MS): Promise<void> => {
  // Loaded here, not at the top: this module is part of the service's first, light phase
  // (container/head-start.ts), which on the embedded database never needs pg.
  const { default: pg } = await import('pg');
  const probe = clientFor(pg.Client, url, connectMs);
  const server = `${probe.host}:${probe.port}`;
  const database = probe.database ?? '';
  try {
    await probe.connect();
    return;
  } catch (error) {
    if ((error as ConnectError).code !== NO_SUCH_DATABASE) throw explain(error as ConnectError, server, database, connectMs);
    if (!create) {
      throw new DatabaseOpenError('postgresql', `database "${database}" does not exist on ${server}`, database, { cause: error });
    }
  } finally {
    await probe.end().catch(() => undefined);
  }
  // The server's own `postgres` database, with the same credentials (the URL's values win over
  // separate options, hence a changed URL).
  const adminUrl = new URL(url);
  adminUrl.pathname = '/postgres';
  const admin = clientFor(pg.Client, adminUrl.toString(), connectMs);
  try {
    await admin.connect();
    await admin.query(`create database ${admin.escapeIdentifier(database)}`);
    logger.info({ database, server }, 'database created');
  } catch (error) {
    if ((error as ConnectError).code === DUPLICATE_DATABASE) return;
    const reason = error as ConnectError;
    throw new DatabaseOpenError(
      'postgresql',
      `cannot create database "${database}" on ${server} (${reason.code ? `${reason.code} ` : ''}${reason.message})`,
      undefined,
      {
        cause: error,
      },
    );
  } finally {
    await admin.end().catch(() => undefined);
  }
};

/** The URL parameters whose value pg reads as a file while it builds a client. */
const FILE_PARAMETERS = ['sslrootcert', 'sslcert', 'sslkey'];

/**
 * A client for `url`, not yet connected. pg reads the files that `sslrootcert`, `sslcert` and
 * `sslkey` name in the client's constructor: one it cannot read is said as the parameter, its
 * path and the system's code (`cannot read sslrootcert /etc/ca.pem (ENOENT)`) — never the
 * URL, which may hold a password.
 */
const clientFor = <C>(Client: new (config: { connectionString: string; connectionTimeoutMillis: number }) => C, url: string, connectMs: number): C => {
  try {
    return new Client({ connectionString: url, connectionTimeoutMillis: connectMs });
  } catch (error) {
    const { code, path } = error as ConnectError & { path?: string };
    let parameters: URLSearchParams | undefined;
    try {
      parameters = new URL(url).searchParams;
    } catch {
      // not a URL: no parameter to name
    }
    const parameter = path === undefined ? undefined : FILE_PARAMETERS.find((name) => parameters?.get(name) === path);
    const what = parameter !== undefined ? `cannot read ${parameter} ${path}` : path !== undefined ? `cannot read ${path}` : 'cannot use the URL';
    throw new DatabaseOpenError('postgresql', `${what} (${code ?? 'invalid'})`, undefined, { cause: error });
  }
};

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'ECONNRESET', 'ENOENT', 'EACCES']);

/** One line for a failed connection: the server, and PostgreSQL's or the network's reason. */
const explain = (error: ConnectError, server: string, database: string, connectMs: number): DatabaseOpenError => {
  const code = error.code;
  if (code !== undefined && NETWORK_CODES.has(code))
    return new DatabaseOpenError('postgresql', `cannot connect to ${server} (${code})`, undefined, { cause: error });
  if (/timeout/i.test(error.message)) {
    return new DatabaseOpenError('postgresql', `cannot connect to ${server} (no answer within ${connectMs / 1000} s)`, undefined, { cause: error });
  }
  if (code === '28P01' || code === '28000') {
    return new DatabaseOpenError('postgresql', `${server} refused the login (${code} ${error.message})`, undefined, { cause: error });
  }
  return new DatabaseOpenError('postgresql', `cannot open database "${database}" on ${server} (${code ? `${code} ` : ''}${error.message})`, undefined, {
    cause: error,
  });
};
