import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { adminSocketPath } from '../adapters/http/admin-socket/admin-socket-path.js';
import { EmbeddedLock } from '../adapters/persistence/embedded-lock.js';
export const findDatabaseTarget = async (config) => {
    if (config.databaseUrl !== undefined)
        return { kind: 'postgresql', url: config.databaseUrl };
    const pid = await new EmbeddedLock(config.dataDir).holder();
    if (pid !== null)
        return { kind: 'server', dataDir: config.dataDir, pid, socketPath: adminSocketPath(config.dataDir) };
    return { kind: 'embedded', dataDir: config.dataDir, exists: existsSync(join(config.dataDir, 'pglite', 'PG_VERSION')) };
};
/**
 * `host:port/database` of a PostgreSQL URL — never its user or password. A host given as a
 * query parameter (`?host=/var/run/postgresql`, a Unix socket) is shown as such.
 */
export const postgresLocation = (url) => {
    try {
        const parsed = new URL(url);
        // As the pg driver reads it: a `host` parameter wins; a socket directory may be URL-encoded.
        const host = parsed.searchParams.get('host') ?? (parsed.hostname !== '' ? decodeURIComponent(parsed.hostname) : 'localhost');
        const port = parsed.port !== '' ? parsed.port : (parsed.searchParams.get('port') ?? '5432');
        const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
        return `${host}:${port}/${database !== '' ? database : decodeURIComponent(parsed.username)}`;
    }
    catch {
        // The configuration accepted it as a postgres:// URL; say no more than that.
        return 'the server DATABASE_URL names';
    }
};
/** The line every command that touches the database writes to stderr first. */
export const describeTarget = (target) => {
    switch (target.kind) {
        case 'postgresql':
            return `using PostgreSQL at ${postgresLocation(target.url)}`;
        case 'server':
            return `using the embedded database in ${target.dataDir} (through the running server, pid ${target.pid})`;
        case 'embedded':
            return `using the embedded database in ${target.dataDir} (not in use by a server)`;
    }
};
//# sourceMappingURL=database-target.js.map