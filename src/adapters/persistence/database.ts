import { MikroORM } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import type { AbstractSqlDriver } from '@mikro-orm/sql';
import { CompiledQuery } from 'kysely';
import pg from 'pg';
import type { Logger } from '../../ports/logger.js';
import { DatabaseOpenError } from './database-open-error.js';
import { type BoundedConnections, boundedConnections, DATABASE_TIMEOUTS, KEEPALIVE_DELAY_MS } from '../shared/database-bounds.js';
import { DatabaseUnavailable, guardPool, unavailableOr } from '../shared/database-unavailable.js';
import type { EmbeddedLock } from './embedded-lock.js';
import { closeEngine, openEngine, type DatabaseOptions, type OpenEngine } from './open-engine.js';
import type { EmbeddedPglite } from './pglite/pglite-thread.js';
import { ENTITIES } from './entities/index.js';
import { MIGRATIONS } from './migrations/index.js';

export type DatabaseEngine = 'pglite' | 'postgresql';

export type { DatabaseOptions } from './open-engine.js';

/** Called with each notification payload; `live` false means notifications may have been missed. */
export interface ChannelListener {
  onMessage(payload: string): void;
  onLiveChange(live: boolean): void;
}

/**
 * Has the ORM's exception converter, which turns the errors of some of its paths (find, flush,
 * count) into its DriverException (a 500), pass DatabaseUnavailable on as it is (a 503), and turn
 * a lost PostgreSQL connection into one. Its query builder and raw `execute` throw the driver's
 * errors unconverted: the embedded database's thread throws DatabaseUnavailable itself, and
 * guardPool translates pg's.
 */
const passUnavailable = <T extends MikroORM<AbstractSqlDriver>>(orm: T): T => {
  const converter = orm.em.getPlatform().getExceptionConverter();
  const convert = converter.convertException.bind(converter);
  converter.convertException = (exception) => {
    const translated = unavailableOr(exception);
    return (translated instanceof DatabaseUnavailable ? translated : convert(exception)) as ReturnType<typeof convert>;
  };
  return orm;
};

/** One open database — PGlite in-process or a PostgreSQL pool — with its ORM and migrations. */
export class Database {
  private constructor(
    /** The ORM, on the PostgreSQL dialect either way: the adapters' only way to the tables. */
    readonly orm: MikroORM<AbstractSqlDriver>,
    readonly engine: DatabaseEngine,
    private readonly options: DatabaseOptions,
    /** The embedded database (the service's on its own thread), shared with the task queue in embedded mode. */
    readonly pglite: EmbeddedPglite | undefined,
    private readonly lock: EmbeddedLock | undefined,
    /** PostgreSQL: the bounds of the ORM's connections (database-bounds.ts), lifted while migrations run. */
    private readonly bounds: BoundedConnections | undefined,
  ) {}

  /**
   * Opens the database: `engine` (openEngine's promise, when the caller started it earlier),
   * with the ORM set up meanwhile and connected to it at its first query. Rejects with
   * DatabaseOpenError as openEngine does.
   */
  static async open(options: DatabaseOptions, engine: Promise<OpenEngine> = openEngine(options)): Promise<Database> {
    // MikroORM 7 connects at the first query, not in `init`: the driver's import and the
    // discovery of the entities (~80 ms of the main thread) run while the engine is still
    // opening (PGlite booting on its thread, or recovering after a crash), not after it.
    const bounds = options.databaseUrl === undefined ? undefined : boundedConnections(options.timeouts ?? DATABASE_TIMEOUTS, pg.Client);
    const initialised = Database.#initOrm(options, engine, bounds);
    let open: OpenEngine;
    try {
      open = await engine;
    } catch (error) {
      await initialised.then(
        (orm) => orm.close(true),
        () => undefined,
      );
      throw error;
    }
    try {
      const orm = await initialised;
      return open.engine === 'postgresql'
        ? new Database(orm, 'postgresql', options, undefined, undefined, bounds)
        : new Database(orm, 'pglite', options, open.pglite, open.lock, undefined);
    } catch (error) {
      await closeEngine(open);
      throw error;
    }
  }

  static async #initOrm(options: DatabaseOptions, engine: Promise<OpenEngine>, bounds: BoundedConnections | undefined): Promise<MikroORM<AbstractSqlDriver>> {
    const common = {
      entities: [...ENTITIES],
      extensions: [Migrator],
      migrations: { migrationsList: [...MIGRATIONS], snapshot: false, transactional: true, allOrNothing: true },
      debug: false,
      logger: (message: string) => options.logger.debug({ component: 'orm' }, message),
      allowGlobalContext: false,
      // The migrations own the schema; their triggers and functions (api_keys' NOTIFY) are not
      // mirrored in the entities, and a schema diff must not count them as drift.
      schemaGenerator: { ignoreTriggers: true, ignoreRoutines: true },
    };
    // Each engine's driver is loaded only when it is the one used: the embedded one brings
    // PGlite's JavaScript (about 1 MB) into the main thread, which PostgreSQL mode never runs.
    if (options.databaseUrl !== undefined && bounds !== undefined) {
      const { PostgreSqlDriver } = await import('@mikro-orm/postgresql');
      // A server that cannot be reached or ends the connection: statements reject with
      // DatabaseUnavailable (503, retried) instead of pg's error (a 500). One that stops
      // answering: connections and statements are bounded (database-bounds.ts), the pool's
      // clients being of the bounded class (set on the pool: MikroORM copies its options).
      const { Client, ...bounded } = bounds.poolOptions;
      const driverOptions = {
        ...bounded,
        onPoolCreated: (pool: Parameters<typeof guardPool>[0]) => {
          Object.assign(pool, { Client });
          guardPool(pool);
        },
      };
      return passUnavailable(await MikroORM.init({ ...common, driver: PostgreSqlDriver, clientUrl: options.databaseUrl, driverOptions }));
    }
    // Handed over as a function: MikroORM deep-copies connection options, and a copy of the
    // object would lose its private state. The ORM asks for it at its first query, after open
    // has awaited the engine; a failed opening is open's to report, not an unhandled rejection.
    const pglite = engine.then((open) => {
      if (open.engine !== 'pglite') throw new Error('the embedded database was expected');
      return open.pglite;
    });
    pglite.catch(() => undefined);
    const { PgliteDriver } = await import('@mikro-orm/pglite');
    return passUnavailable(await MikroORM.init({ ...common, driver: PgliteDriver, dbName: 'agent_gateway', driverOptions: { pglite: () => pglite } }));
  }

  /**
   * Applies pending migrations; returns the names applied. On PostgreSQL, processes starting
   * at once on one database (replicas of a rolling upgrade, a CLI command during a start) take
   * turns: the migration runs under an advisory lock, and a process that waited for it finds
   * the migrations applied and applies none (the migrator takes no lock of its own: the second
   * process failed on "relation already exists").
   *
   * A database that records migrations this version does not have was migrated by a newer
   * version (refuseNewer). Migrations that fail are all rolled back (they run all or nothing)
   * and reported as a DatabaseOpenError naming the cause (migrationFailure).
   */
  async migrate(): Promise<string[]> {
    // A migration may take long on large tables (an index, a rewritten column): its statements
    // are not bounded by DATABASE_QUERY_TIMEOUT_MS. Connections still are.
    return this.bounds === undefined ? this.#migrate() : this.bounds.unbounded(() => this.#migrate());
  }

  async #migrate(): Promise<string[]> {
    const recorded = await this.#recorded();
    this.#refuseNewer(recorded);
    if (allApplied(recorded)) return [];
    const apply = async (pending: readonly string[]): Promise<string[]> => {
      try {
        return (await this.orm.migrator.up()).map((migration) => migration.name);
      } catch (error) {
        throw migrationFailure(error, pending, this.engine);
      }
    };
    if (this.pglite !== undefined) return apply(pendingOf(recorded));
    return withAdvisoryLock(this.options.databaseUrl as string, this.options.timeouts ?? DATABASE_TIMEOUTS, MIGRATION_LOCK, async () => {
      const now = await this.#recorded();
      return allApplied(now) ? [] : apply(pendingOf(now));
    });
  }

  /**
   * A database migrated by a newer version of the gateway (it records migrations this version
   * does not have). The embedded database is opened by one process at a time, so this is a
   * downgrade: refused, before anything is written, naming the migrations and what to do — the
   * version would otherwise write to tables whose newer rules it does not know. On PostgreSQL
   * old and new replicas run side by side while a rolling upgrade goes through them
   * (docs/deployment.md, Upgrades): a warning then.
   */
  #refuseNewer(recorded: ReadonlySet<string> | undefined): void {
    const unknown = [...(recorded ?? [])].filter((name) => !KNOWN_MIGRATIONS.has(name));
    if (unknown.length === 0) return;
    const records = `it records ${unknown.length === 1 ? 'a migration' : `${unknown.length} migrations`} this version does not have (${unknown.join(', ')})`;
    if (this.engine === 'pglite') {
      throw new DatabaseOpenError(
        'dataDir',
        `The embedded database in ${this.options.dataDir} was migrated by a newer version of agent-gateway: ${records}. ` +
          'Start that version (or a later one) again, or restore the backup taken before the upgrade; this version stops without writing to it',
      );
    }
    this.options.logger.warn(
      { migrations: unknown },
      `the database was migrated by a newer version of agent-gateway (${records}): this one runs beside it, as during a rolling upgrade; upgrade it`,
    );
  }

  /** The migrations the database records as applied, oldest first (what the CLI's `migrate` reports through a running server). */
  async recordedMigrations(): Promise<string[]> {
    const rows = (await this.orm.em.getConnection().execute('select name from mikro_orm_migrations order by id')) as Array<{ name: string }>;
    return rows.map((row) => row.name.replace(/\.[jt]s$/, ''));
  }

  /**
   * The names of the migrations recorded as applied, in one query (the migrator's own check costs
   * several statements and a DDL: most of the migration step of a start-up); undefined when the
   * table is missing (a new database).
   */
  async #recorded(): Promise<ReadonlySet<string> | undefined> {
    try {
      return new Set(await this.recordedMigrations());
    } catch {
      return undefined;
    }
  }

  /**
   * Subscribes to a NOTIFY channel. On PostgreSQL a dedicated connection listens and
   * reconnects after failures, reporting `live: false` while it is down — also when it went
   * silent without an error (listenOnPostgres).
   * Returns the function that unsubscribes.
   */
  async listen(channel: string, listener: ChannelListener): Promise<() => Promise<void>> {
    if (this.pglite) {
      const unsubscribe = await this.pglite.listen(channel, (payload) => listener.onMessage(payload));
      listener.onLiveChange(true);
      return unsubscribe;
    }
    // Its end, when the server does not answer it (gone silent), is let go after the connection bound, as the pools' are.
    const endMs = (this.options.timeouts ?? DATABASE_TIMEOUTS).connectMs;
    return listenOnPostgres(this.options.databaseUrl as string, channel, listener, this.options.logger, { ...LISTEN_LIVENESS, endMs });
  }

  /**
   * Runs one statement whose parameters travel to the database apart from its text, as bind
   * parameters (`$1`, `$2` …), through the ORM's own query executor (Kysely). The ORM's `execute`
   * splices every parameter into the SQL text instead, quoting it character by character in
   * JavaScript: for the request path's large JSON parameter that was 4–5 % of the main thread
   * (docs/architecture.md, "The request path, and where it is hand-written"). Resolves to the
   * rows it returns (`returning …`), none otherwise.
   */
  async run<Row = never>(sql: string, parameters: readonly unknown[]): Promise<Row[]> {
    const { rows } = await this.orm.em
      .getConnection()
      .getClient()
      .executeQuery<Row>(CompiledQuery.raw(sql, [...parameters]));
    return [...rows];
  }

  /** Sends a notification on a channel (every listener of every process on this database gets it). */
  async notify(channel: string, payload = ''): Promise<void> {
    await this.orm.em.getConnection().execute('select pg_notify(?, ?)', [channel, payload]);
  }

  /** A readiness check: the ORM's connection check (one trivial query); rejects with its cause. */
  readiness(): { name: string; check(): Promise<void> } {
    return {
      name: 'database',
      check: async () => {
        const result = await this.orm.checkConnection();
        if (!result.ok) throw result.error ?? new Error(result.reason);
      },
    };
  }

  /**
   * The service is stopping: on PostgreSQL, a statement that waits long while the server answers
   * nothing has the server tried, and is given up on when it is silent, rather than after
   * DATABASE_QUERY_TIMEOUT_MS (database-bounds.ts, `stopping`).
   */
  stopping(): void {
    this.bounds?.stopping();
  }

  /** Closes the ORM and the engine, and releases the embedded database's lock whatever failed (a dead engine's close may). */
  async close(): Promise<void> {
    try {
      await this.orm.close(true);
    } finally {
      try {
        await this.pglite?.close();
      } finally {
        await this.lock?.release();
      }
    }
  }
}

/** The advisory lock key of migrations (any constant of the gateway's own; pg_advisory_lock takes a bigint). */
const MIGRATION_LOCK = 0x61677700; // "agw\0"

const KNOWN_MIGRATIONS: ReadonlySet<string> = new Set(MIGRATIONS.map((migration) => migration.name));

/** True when every migration of this version is recorded as applied (false for a new database). */
const allApplied = (recorded: ReadonlySet<string> | undefined): boolean =>
  recorded !== undefined && MIGRATIONS.every((migration) => recorded.has(migration.name));

/** The migrations of this version not recorded as applied, oldest first. */
const pendingOf = (recorded: ReadonlySet<string> | undefined): string[] =>
  MIGRATIONS.map((migration) => migration.name).filter((name) => recorded?.has(name) !== true);

/** SQLSTATEs of an object that exists already: a table, an object (trigger, index), a function, a schema. */
const ALREADY_EXISTS: ReadonlySet<string> = new Set(['42P07', '42710', '42723', '42P06']);

/**
 * A failed migration as one line naming the cause. The migrations run in one transaction (all
 * or nothing), so none of them was applied. On PostgreSQL, an object that exists already means
 * that the database holds tables of another application (or of an unrelated older install):
 * the gateway's migrations create tables with plain names (`jobs`, `api_keys`, `settings`), and
 * need a database of their own.
 */
const migrationFailure = (error: unknown, pending: readonly string[], engine: DatabaseEngine): DatabaseOpenError => {
  const { message, code } = error as { message?: string; code?: unknown };
  const which = pending.length === 1 ? `its pending migration ${pending[0]}` : `its ${pending.length} pending migrations (${pending[0]} to ${pending.at(-1)})`;
  const exists = engine === 'postgresql' && typeof code === 'string' && ALREADY_EXISTS.has(code);
  const hint = exists
    ? ': the database holds tables or other objects that agent-gateway did not create; give agent-gateway a database of its own (an empty one: DATABASE_CREATE=true creates it)'
    : '';
  return new DatabaseOpenError(
    engine === 'postgresql' ? 'postgresql' : 'dataDir',
    `Migrating the database failed, and none of ${which} was applied: ${message ?? String(error)}${hint}`,
    undefined,
    { cause: error },
  );
};

/**
 * Runs `work` holding a session-level advisory lock, on a connection of its own: the lock is
 * the connection's, so it is released when `work` ends, and also if this process dies.
 */
const withAdvisoryLock = async <T>(url: string, timeouts: { readonly connectMs: number }, key: number, work: () => Promise<T>): Promise<T> => {
  // Its wait for the lock is not bounded (another process's migrations); its connection is.
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: timeouts.connectMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
  });
  client.on('error', () => undefined); // a lost connection fails the query below, or ends the lock
  await client.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [key]);
    return await work();
  } finally {
    await client.end().catch(() => undefined);
  }
};

/**
 * How often the listening connection proves it still answers, and how long it may take. A
 * connection can die without a word — a NAT's or load balancer's idle timeout, a fail-over —
 * and then no error or end event comes: the listener would count as live while notifications
 * no longer arrive, and a cache kept by them (API keys) would keep a deleted key for good.
 * With these, such a connection counts as down within about 10 s.
 */
export const LISTEN_LIVENESS = { everyMs: 5000, timeoutMs: 5000 } as const;

/** @internal exported for the tests; Database.listen is the way in. */
export const listenOnPostgres = async (
  url: string,
  channel: string,
  listener: ChannelListener,
  logger: Logger,
  liveness: { readonly everyMs: number; readonly timeoutMs: number; readonly endMs?: number } = LISTEN_LIVENESS,
): Promise<() => Promise<void>> => {
  let stopped = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let delay = 100;

  const connect = async (): Promise<void> => {
    // query_timeout: a query on a connection gone silent fails instead of waiting for ever.
    const next = new pg.Client({ connectionString: url, query_timeout: liveness.timeoutMs, connectionTimeoutMillis: 2 * liveness.timeoutMs, keepAlive: true });
    next.on('notification', (message) => listener.onMessage(message.payload ?? '*'));
    next.on('error', (error) => {
      logger.warn({ err: error, channel }, 'notification connection failed');
      lost(next);
    });
    next.on('end', () => lost(next));
    client = next;
    await next.connect();
    await next.query(`LISTEN ${channel}`);
    delay = 100;
    listener.onLiveChange(true);
    beat(next);
  };
  /** Ends a connection; one gone silent never confirms its end, and its socket is let go after a while. */
  const close = async (which: pg.Client): Promise<void> => {
    let timer: NodeJS.Timeout | undefined;
    const ended = await Promise.race([
      which.end().then(
        () => true,
        () => true,
      ),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), liveness.endMs ?? liveness.timeoutMs))),
    ]);
    clearTimeout(timer);
    if (!ended) (which as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  };
  /** One round trip on the listening connection per `everyMs`; one that fails or times out counts the connection lost. */
  const beat = (which: pg.Client): void => {
    const timer = setTimeout(() => {
      if (which !== client || stopped) return;
      which.query('select 1').then(
        () => beat(which),
        (error: unknown) => {
          if (which !== client || stopped) return;
          logger.warn({ err: error, channel }, 'notification connection stopped answering; reconnecting');
          lost(which);
        },
      );
    }, liveness.everyMs);
    timer.unref();
  };
  const lost = (which: pg.Client): void => {
    if (which !== client || stopped) return;
    client = undefined;
    listener.onLiveChange(false);
    void close(which);
    schedule();
  };
  const schedule = (): void => {
    retry = setTimeout(() => {
      connect().catch((error: unknown) => {
        logger.warn({ err: error, channel }, 'could not reconnect for notifications');
        if (client) lost(client);
        else schedule();
      });
    }, delay);
    retry.unref();
    delay = Math.min(delay * 2, 10_000);
  };

  await connect();
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    if (client !== undefined) await close(client);
  };
};
