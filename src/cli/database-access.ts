import { join } from 'node:path';
import type { Container } from 'inversify';
import type { Logger as Pino } from 'pino';
import type { AdminSocketClient } from '../adapters/http/admin-socket/admin-socket-client.js';
import type { Database } from '../adapters/persistence/database.js';
import type { OpenEngine } from '../adapters/persistence/open-engine.js';
import type { AppConfig } from '../container/config.js';
import type { Infrastructure } from '../container/infrastructure.js';
import type { Trigger } from '../domain/triggers/trigger.js';
import { copiedDataDir, type DatabaseTarget } from './database-target.js';
import type { CliIo } from './cli-io.js';
import { terminalField } from './terminal-text.js';
import { CliFailure } from './usage-error.js';

/**
 * How a command reaches its database, loading only what that way needs (every import below is
 * dynamic): through the running server's admin socket — no database module at all — or by
 * opening the database itself.
 */

type ServerTarget = Extract<DatabaseTarget, { kind: 'server' }>;
type DirectTarget = Exclude<DatabaseTarget, ServerTarget>;

/** How long the CLI waits for a server that holds the database but does not answer yet (still starting). */
export const SERVER_WAIT_MS = 30_000;

const connectionCode = (error: unknown): string | undefined => {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
};

/**
 * A client of the running server's admin socket, once the server answers. A server that holds
 * the database but has no socket yet is starting (the socket opens at the end of its start):
 * waited for, up to `waitMs`. Fails with one line when it never answers or stops meanwhile.
 *
 * The commands send the admin password and receive new keys over this socket, so the CLI makes
 * sure it talks to the server, not to a socket another local account put in its place:
 * - DATA_DIR must be private (private-data-dir.ts, as the server checks it at its start): in a
 *   directory only the service's account (and root) can write, nobody else can replace the
 *   socket, between the checks below or later.
 * - Before every request the socket must be a socket owned by this account — by root or
 *   DATA_DIR's owner when the CLI runs as root (sudo beside a service account) — (AdminSocketClient's
 *   `owners`): a socket's owner is the account that bound it, which no other account can forge.
 * - The server that answers must be the process the lock file names (`/status` answers its
 *   pid): not a server of an older start, or of another DATA_DIR; and it must serve this
 *   DATA_DIR (`/status` answers its directory's device and inode): not the original's server
 *   reached from a copy of its directory made with a link to its socket (copiedDataDir).
 * Each failure is one line naming the path and what to do; nothing is sent before these pass.
 */
export const connectToServer = async (
  target: ServerTarget,
  io: CliIo,
  options: { readonly waitMs?: number; readonly pollMs?: number; readonly alive?: (pid: number) => boolean } = {},
): Promise<AdminSocketClient> => {
  const [{ AdminSocketClient, UntrustedAdminSocket }, { checkPrivateDataDir, currentUid, UnsafeDataDir }, { directoryIdentity }] = await Promise.all([
    import('../adapters/http/admin-socket/admin-socket-client.js'),
    import('../adapters/persistence/private-data-dir.js'),
    import('../adapters/shared/directory-identity.js'),
  ]);
  const me = currentUid();
  let dir: Awaited<ReturnType<typeof checkPrivateDataDir>>;
  try {
    dir = await checkPrivateDataDir(target.dataDir, me);
  } catch (error) {
    if (error instanceof UnsafeDataDir) throw new CliFailure(`DATA_DIR: ${error.message}`, { cause: error });
    throw new CliFailure(`DATA_DIR: cannot read ${target.dataDir} (${connectionCode(error) ?? (error as Error).message})`, { cause: error });
  }
  const owners = me === undefined || dir === undefined ? undefined : me === 0 ? [...new Set([0, dir.uid])] : [me];
  const client = new AdminSocketClient(target.socketPath, owners);
  const deadline = Date.now() + (options.waitMs ?? SERVER_WAIT_MS);
  const alive = options.alive ?? isAlive;
  let waiting = false;
  for (;;) {
    let answered: Awaited<ReturnType<typeof client.status>>;
    try {
      answered = await client.status();
    } catch (error) {
      if (error instanceof UntrustedAdminSocket) throw new CliFailure(error.message, { cause: error });
      const code = connectionCode(error);
      const starting = code === 'ENOENT' || code === 'ECONNREFUSED';
      if (code === 'EACCES') {
        throw new CliFailure(
          `The admin socket ${target.socketPath} of the server (pid ${target.pid}) is owner-only: run the command as the account that runs the service`,
          {
            cause: error,
          },
        );
      }
      if (!alive(target.pid)) throw new CliFailure(`The server (pid ${target.pid}) stopped before it answered; run the command again`, { cause: error });
      if (!starting || Date.now() >= deadline) {
        throw new CliFailure(
          `The server (pid ${target.pid}) holds the embedded database in ${target.dataDir} but its admin socket ${target.socketPath} does not answer (${code ?? (error as Error).message}); stop that process or try again`,
          { cause: error },
        );
      }
      if (!waiting) io.err.write(`waiting for the server (pid ${target.pid}) to finish starting…\n`);
      waiting = true;
      await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 200));
      continue;
    }
    if (answered.pid !== target.pid) {
      throw new CliFailure(
        `The admin socket ${target.socketPath} answers for process ${answered.pid}, but the lock file ${join(target.dataDir, 'embedded.pid')} names process ${target.pid}: nothing was sent to it; run the command again, and if this persists stop the server and restart it`,
      );
    }
    // A server of an older version does not say which directory it serves.
    if (answered.dataDir !== undefined && answered.dataDir.id !== (await directoryIdentity(target.dataDir)).id) {
      const lockFile = join(target.dataDir, 'embedded.pid');
      throw copiedDataDir(target.dataDir, answered.dataDir.path, answered.pid, `a link to its admin socket ${target.socketPath}`, [
        target.socketPath,
        lockFile,
      ]);
    }
    return client;
  }
};

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** The CLI's logs: on stderr, so that stdout carries only results; `warn` unless a more detailed level is set. */
const cliLogger = async (config: AppConfig): Promise<Pino> => {
  const { pino } = await import('pino');
  const { createPino } = await import('../adapters/logging/pino-logger.js');
  const { channelCredentialHeaders } = await import('../container/channels/index.js');
  return createPino(config.logLevel === 'info' ? 'warn' : config.logLevel, pino.destination(2), channelCredentialHeaders());
};

/** An open database and what opening it applied. */
export interface OpenedDatabase {
  readonly database: Database;
  readonly pino: Pino;
  /** The migrations applied on opening (pending ones; all of them on a new database), oldest first. */
  readonly applied: readonly string[];
}

/**
 * Opens the database itself (PostgreSQL, or an embedded database no server holds), applies
 * pending migrations, runs `work`, closes it. The engine is started first: on the embedded
 * database PGlite boots on this thread, with small shared memory (a short-lived open, see
 * open-engine.ts), and while it reads its files and compiles its WebAssembly this thread loads
 * the ORM and whatever `whileOpening` starts loading.
 */
export const withOpenDatabase = async <T>(
  config: AppConfig,
  target: DirectTarget,
  io: CliIo,
  work: (opened: OpenedDatabase) => Promise<T>,
  whileOpening: () => void = () => undefined,
): Promise<T> => {
  if (target.kind === 'embedded') {
    // Before anything is opened: run as root, it becomes DATA_DIR's owner (data-dir-owner.ts).
    const uid = await (await import('./data-dir-owner.js')).actAsDataDirOwner(target.dataDir);
    if (uid !== undefined)
      io.err.write(`running as uid ${uid}, the owner of ${terminalField(target.dataDir)}, so that the files this command writes there stay the service's\n`);
    if (!target.exists) io.err.write(`no database in ${terminalField(target.dataDir)} yet: creating it (set DATABASE_URL to use PostgreSQL instead)\n`);
  }
  const [pino, { PinoLogger }, { startEngine, closeEngine }, { explainDatabaseFailure }] = await Promise.all([
    cliLogger(config),
    import('../adapters/logging/pino-logger.js'),
    import('../adapters/persistence/open-engine.js'),
    import('../container/explain-database-failure.js'),
  ]);
  const options = {
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    logger: new PinoLogger(pino),
    create: config.databaseCreate,
    shortLived: true,
    timeouts: config.databaseTimeouts,
  };
  let engine: Promise<OpenEngine>;
  try {
    engine = (await startEngine(options)).opened;
  } catch (error) {
    throw explainDatabaseFailure(error);
  }
  engine.catch(() => undefined); // awaited by Database.open; until then a rejection is not unhandled
  whileOpening();
  let database: Database;
  try {
    const { Database } = await import('../adapters/persistence/database.js');
    database = await Database.open(options, engine);
  } catch (error) {
    // Database.open closes the engine when the ORM fails; this covers a failed import.
    await engine.then(closeEngine, () => undefined);
    throw explainDatabaseFailure(error);
  }
  try {
    // A migration that fails, or a database of a newer version, is a DatabaseOpenError: said as
    // the setting to look at (`DATABASE_URL: …`, `DATA_DIR: …`), as a database that cannot be opened.
    const applied = await database.migrate().catch((error: unknown) => {
      throw explainDatabaseFailure(error);
    });
    return await work({ database, pino, applied });
  } finally {
    await database.close();
  }
};

/** `1 migration`, `5 migrations`. */
export const countOf = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? '' : 's'}`;

/** Which container a command works with, and what it needs besides the database. */
export interface ContainerChoice {
  /** Loads the container's builder (default: the administration container). */
  readonly load?: () => Promise<(config: AppConfig, infra: Infrastructure) => Container>;
  /** The trigger file, for a command that fires triggers. */
  readonly triggers?: readonly Trigger[];
}

const administrationBuilder = async (): Promise<(config: AppConfig, infra: Infrastructure) => Container> =>
  (await import('../container/build-administration-container.js')).buildAdministrationContainer;

/** withOpenDatabase with the administration container (keys, admin password) on it, or the container `choice` loads. */
export const withAdministration = async <T>(
  config: AppConfig,
  target: DirectTarget,
  io: CliIo,
  work: (container: Container) => Promise<T>,
  choice: ContainerChoice = {},
): Promise<T> => {
  const loadContainer = () => import('reflect-metadata').then(choice.load ?? administrationBuilder);
  let loading: ReturnType<typeof loadContainer> | undefined;
  // Loaded while the database opens (between PGlite's asynchronous steps: reading its files, compiling its WebAssembly).
  const load = (): void => {
    loading = loadContainer();
    loading.catch(() => undefined); // awaited below; until then a rejection is not unhandled
  };
  return withOpenDatabase(
    config,
    target,
    io,
    async ({ database, pino, applied }) => {
      if (applied.length > 0) io.err.write(`applied ${countOf(applied.length, 'pending migration')} first: ${applied.join(', ')}\n`);
      const build = await (loading ?? loadContainer());
      const container = build(config, { pino, database, env: process.env, ...(choice.triggers ? { triggers: choice.triggers } : {}) });
      try {
        return await work(container);
      } finally {
        await container.unbindAllAsync();
      }
    },
    load,
  );
};
