import { DatabaseOpenError } from './database-open-error.js';
/** How long start-up waits for a PostgreSQL server that does not answer (a firewalled host). */
export const CONNECT_TIMEOUT_MS = 5_000;
/** PostgreSQL's `invalid_catalog_name`: the database named in the URL does not exist. */
const NO_SUCH_DATABASE = '3D000';
/** `duplicate_database`: someone (another replica starting) created it first. */
const DUPLICATE_DATABASE = '42P04';
/**
 * Connects once to the database `url` names, before the ORM and the queue open their pools,
 * so that a wrong URL stops start-up with one clear line instead of an ORM stack — and so
 * that a database that does not exist is never created silently: only when `create` is true
 * is it created (on the same server, through its `postgres` database). Throws
 * DatabaseOpenError naming the server as host:port, never the URL.
 */
export const ensurePostgresDatabase = async (url, create, logger) => {
    // Loaded here, not at the top: this module is part of the service's first, light phase
    // (container/head-start.ts), which on the embedded database never needs pg.
    const { default: pg } = await import('pg');
    const probe = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    const server = `${probe.host}:${probe.port}`;
    const database = probe.database ?? '';
    try {
        await probe.connect();
        return;
    }
    catch (error) {
        if (error.code !== NO_SUCH_DATABASE)
            throw explain(error, server, database);
        if (!create) {
            throw new DatabaseOpenError('postgresql', `database "${database}" does not exist on ${server}`, database, { cause: error });
        }
    }
    finally {
        await probe.end().catch(() => undefined);
    }
    // The server's own `postgres` database, with the same credentials (the URL's values win over
    // separate options, hence a changed URL).
    const adminUrl = new URL(url);
    adminUrl.pathname = '/postgres';
    const admin = new pg.Client({ connectionString: adminUrl.toString(), connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    try {
        await admin.connect();
        await admin.query(`create database ${admin.escapeIdentifier(database)}`);
        logger.info({ database, server }, 'database created');
    }
    catch (error) {
        if (error.code === DUPLICATE_DATABASE)
            return;
        const reason = error;
        throw new DatabaseOpenError('postgresql', `cannot create database "${database}" on ${server} (${reason.code ? `${reason.code} ` : ''}${reason.message})`, undefined, {
            cause: error,
        });
    }
    finally {
        await admin.end().catch(() => undefined);
    }
};
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'ECONNRESET', 'ENOENT', 'EACCES']);
/** One line for a failed connection: the server, and PostgreSQL's or the network's reason. */
const explain = (error, server, database) => {
    const code = error.code;
    if (code !== undefined && NETWORK_CODES.has(code))
        return new DatabaseOpenError('postgresql', `cannot connect to ${server} (${code})`, undefined, { cause: error });
    if (/timeout/i.test(error.message)) {
        return new DatabaseOpenError('postgresql', `cannot connect to ${server} (no answer within ${CONNECT_TIMEOUT_MS / 1000} s)`, undefined, { cause: error });
    }
    if (code === '28P01' || code === '28000') {
        return new DatabaseOpenError('postgresql', `${server} refused the login (${code} ${error.message})`, undefined, { cause: error });
    }
    return new DatabaseOpenError('postgresql', `cannot open database "${database}" on ${server} (${code ? `${code} ` : ''}${error.message})`, undefined, {
        cause: error,
    });
};
//# sourceMappingURL=ensure-postgres-database.js.map