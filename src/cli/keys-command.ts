import { adminSocketPath } from '../adapters/http/admin-socket/admin-socket-path.js';
import type { EmbeddedDatabaseBusy } from '../adapters/persistence/embedded-lock.js';
import type { KeyAdministration } from '../application/auth/api-key-administration.js';
import type { AppConfig } from '../container/config.js';
import type { ApiKeySummary } from '../domain/auth/api-key-record.js';
import type { CliIo } from './cli-io.js';
import type { ParsedCommand } from './command-line.js';
import { databaseOfCommand } from './command-context.js';
import { connectToServer, withAdministration } from './database-access.js';
import type { DatabaseTarget } from './database-target.js';
import { terminalSafe } from './terminal-text.js';
import { BadArgument } from './usage-error.js';

type ServerTarget = Extract<DatabaseTarget, { kind: 'server' }>;

/**
 * The server that took the embedded database in `dataDir` after this command looked at its lock
 * file and before it opened the database itself (a server starting then): what the open failed
 * with names it (EmbeddedDatabaseBusy, the cause of the DATA_DIR error). Undefined for any other
 * failure, and for a holder on another host (its admin socket is not this machine's).
 */
const serverThatTookOver = (error: unknown, dataDir: string): ServerTarget | undefined => {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    // By its name, not instanceof: the database modules are imported dynamically, and where this
    // module was required instead (under the test runner) the lock's module is loaded twice, as
    // two classes.
    if (cause.name === 'EmbeddedDatabaseBusy') {
      const busy = cause as EmbeddedDatabaseBusy;
      const local = busy.host === undefined && busy.dataDir === dataDir && Number.isInteger(busy.pid);
      return local ? { kind: 'server', dataDir, pid: busy.pid, socketPath: adminSocketPath(dataDir) } : undefined;
    }
  }
  return undefined;
};

/**
 * Runs `work` on the keys of `target`: through the running server, or on the database opened
 * here. A server that starts between the look at the lock file and the open (the open then fails:
 * the database is in use by it) is gone through instead: its admin socket opens at the end of its
 * start, and connectToServer waits for it (up to SERVER_WAIT_MS, saying so on stderr). Nothing was
 * done on the database before the open failed, so the work runs once.
 */
export const withKeysAt = async <T>(io: CliIo, config: AppConfig, target: DatabaseTarget, work: (keys: KeyAdministration) => Promise<T>): Promise<T> => {
  if (target.kind === 'server') return work(await connectToServer(target, io));
  const { TOKENS } = await import('../container/tokens.js');
  try {
    return await withAdministration(config, target, io, async (container) => work(await container.getAsync(TOKENS.KeyAdministration)));
  } catch (error) {
    const server = target.kind === 'embedded' ? serverThatTookOver(error, target.dataDir) : undefined;
    if (server === undefined) throw error;
    io.err.write(`a server (pid ${server.pid}) took the embedded database in ${server.dataDir} meanwhile (it is starting): going through it instead\n`);
    return work(await connectToServer(server, io));
  }
};

/** Runs `work` on the keys wherever they are (withKeysAt, on the database of the command's configuration). */
const withKeys = async <T>(io: CliIo, work: (keys: KeyAdministration) => Promise<T>): Promise<T> => {
  const { config, target } = await databaseOfCommand(io);
  return withKeysAt(io, config, target, work);
};

const row = (key: ApiKeySummary) => ({
  id: key.id,
  name: key.name,
  prefix: key.prefix,
  created_at: key.createdAt.toISOString(),
  last_used_at: key.lastUsedAt?.toISOString() ?? null,
});

/** `keys create --name NAME [--json]`: the key is printed once. */
export const createKey = async ({ values }: ParsedCommand, io: CliIo): Promise<number> => {
  // A name that cannot be stored fails here, before the database is opened (or created).
  const [{ validateKeyName }, { isDomainError }] = await Promise.all([import('../domain/auth/key-name.js'), import('../domain/errors/domain-error.js')]);
  let name: string;
  try {
    name = validateKeyName(values.name);
  } catch (error) {
    // The command line's value: exit code 2 with the usage, as for a missing --name.
    throw isDomainError(error) ? new BadArgument(error.message) : error;
  }
  const created = await withKeys(io, (keys) => keys.create(name));
  if (values.json === true) {
    io.out.write(`${JSON.stringify({ id: created.id, name: created.name, key: created.key, created_at: created.createdAt.toISOString() })}\n`);
  } else {
    io.out.write(`Created API key "${terminalSafe(created.name)}" (id ${created.id}).\n`);
    io.out.write(`Key (shown only now, store it safely):\n\n  ${created.key}\n\n`);
    io.out.write('Send it in the x-api-key header.\n');
  }
  return 0;
};

/** `keys list [--json]`: never a key, only its display prefix. */
export const listKeys = async ({ values }: ParsedCommand, io: CliIo): Promise<number> => {
  const keys = (await withKeys(io, (admin) => admin.list())).map(row);
  if (values.json === true) io.out.write(`${JSON.stringify(keys)}\n`);
  else if (keys.length === 0) io.out.write('No API keys. Create one with: agent-gateway keys create --name NAME\n');
  else {
    io.out.write(`${['ID', 'NAME', 'PREFIX', 'CREATED', 'LAST USED'].join('\t')}\n`);
    // A name may hold C1 controls or bidi overrides (only C0 and DEL are refused): shown escaped.
    for (const key of keys) io.out.write(`${[key.id, terminalSafe(key.name), key.prefix, key.created_at, key.last_used_at ?? '-'].join('\t')}\n`);
  }
  return 0;
};

/** `keys revoke ID`. */
export const revokeKey = async ({ positionals }: ParsedCommand, io: CliIo): Promise<number> => {
  const [id] = positionals as [string];
  await withKeys(io, (keys) => keys.revoke(id));
  io.out.write(`Revoked key ${id}\n`);
  return 0;
};
