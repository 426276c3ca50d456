import { DomainError } from '../../domain/errors/domain-error.js';

/**
 * The database cannot be used for now: the embedded database's thread failed (a PANIC, the
 * thread died; the service stops for its supervisor to start it again), or the PostgreSQL server
 * cannot be reached or ended the connection. Answered 503 with `Retry-After` (a DomainError
 * `unavailable`); its message, which names files or the failure, goes to the log only.
 */
export class DatabaseUnavailable extends DomainError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('unavailable', message, options);
    this.name = 'DatabaseUnavailable';
  }
}

/** Node's codes of a connection that cannot be made or was cut (pg passes them on as they are). */
const CONNECTION_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * PostgreSQL's codes of a server that ended the session or takes none now: 57P01 admin_shutdown
 * (a fast shutdown, pg_terminate_backend), 57P02 crash_shutdown, 57P03 cannot_connect_now (starting
 * or in recovery), 53300 too_many_connections; class 08 is connection_exception.
 */
const SERVER_CODES: ReadonlySet<string> = new Set(['57P01', '57P02', '57P03', '53300']);

/**
 * pg's own texts for a connection lost or never made (they carry no code); `timeout expired` is a
 * connection not made within its connectionTimeoutMillis. A statement not answered within its
 * bound (database-bounds.ts) carries ETIMEDOUT.
 */
const PG_CONNECTION_TEXTS =
  /^(Connection terminated|timeout exceeded when trying to connect|timeout expired$|Client has encountered a connection error and is not queryable|Connection terminated unexpectedly)/;

/**
 * `error` as DatabaseUnavailable when it says that the PostgreSQL server cannot be reached or
 * ended the connection (the pool connects again at the next statement); anything else as it is.
 */
export const unavailableOr = (error: unknown): unknown => {
  if (error instanceof DatabaseUnavailable || !(error instanceof Error)) return error;
  const code = (error as { code?: unknown }).code;
  const lost =
    (typeof code === 'string' && (CONNECTION_CODES.has(code) || SERVER_CODES.has(code) || code.startsWith('08'))) || PG_CONNECTION_TEXTS.test(error.message);
  return lost ? new DatabaseUnavailable(`The PostgreSQL server cannot be used for now: ${error.message}`, { cause: error }) : error;
};

/** The part of pg's Pool and Client used here. */
interface QueryingClient {
  query(...args: unknown[]): unknown;
}
/** A client as the pool hands it out: `release` gives it back (once per checkout). */
interface CheckedOutClient extends QueryingClient {
  release(error?: unknown): unknown;
  once(event: 'end', listener: () => void): unknown;
  removeListener(event: 'end', listener: () => void): unknown;
}
interface ConnectingPool {
  connect(...args: unknown[]): unknown;
}

const GUARDED = Symbol('agw.unavailableGuarded');

/**
 * Has the statements of `pool` (pg's, under the ORM) reject with DatabaseUnavailable when the
 * server cannot be reached or ends the connection: a connection that cannot be made, and a
 * statement whose connection was lost. The ORM passes most errors on as the driver threw them
 * (its query builder does not convert them), so they are translated where they arise. Callback
 * calls (pg-pool's own `query`) are left as they are. A client whose connection is lost while
 * checked out is given back to the pool (releaseWhenLost).
 */
export const guardPool = (pool: ConnectingPool): void => {
  const connect = pool.connect.bind(pool);
  pool.connect = (...args: unknown[]): unknown => {
    if (args.length > 0) return connect(...args);
    return (connect() as Promise<CheckedOutClient>).then(
      (client) => {
        guardClient(client);
        releaseWhenLost(client);
        return client;
      },
      (error: unknown) => {
        throw unavailableOr(error);
      },
    );
  };
};

const guardClient = (client: QueryingClient & { [GUARDED]?: true }): void => {
  if (client[GUARDED]) return;
  client[GUARDED] = true;
  const query = client.query.bind(client);
  client.query = (...args: unknown[]): unknown => {
    const result = query(...args);
    return result instanceof Promise
      ? result.catch((error: unknown) => {
          throw unavailableOr(error);
        })
      : result;
  };
};

/**
 * Gives a checked-out client back to the pool, which drops it, the moment its connection is lost
 * (pg's `end`: the server ended the session, the connection was cut); its holder's own release
 * after that does nothing. The ORM's query builder (kysely) gives a transaction's client back only
 * when its BEGIN, COMMIT or ROLLBACK succeeds, and on a lost connection none can: the client
 * stayed checked out for good, one connection of the pool lost per transaction cut off, and the
 * pool's end — the database's close, the last step of a stop — waited for it forever.
 */
const releaseWhenLost = (client: CheckedOutClient): void => {
  const release = client.release;
  let released = false;
  const lost = (): void => {
    if (released) return;
    released = true;
    release.call(client, new Error('the connection to the PostgreSQL server was lost while the client was checked out'));
  };
  client.once('end', lost);
  client.release = (error?: unknown): unknown => {
    client.removeListener('end', lost);
    if (released) return undefined;
    released = true;
    return release.call(client, error);
  };
};
