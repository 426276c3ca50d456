import { rename, writeFile } from 'node:fs/promises';
import { createServer, Socket } from 'node:net';
import { join } from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import type { Database } from '../../src/adapters/persistence/database.js';
import { sql } from './databases.js';

/*
 * A database that cannot be used, made on purpose: a PostgreSQL server reached through a proxy the
 * test can take away, a session the server ends (57P01), an embedded database whose thread stopped
 * after a PANIC.
 */

/** A TCP proxy in front of a PostgreSQL server, standing for the server in the tests' outages. */
export interface PostgresProxy {
  /** The database's URL through the proxy. */
  readonly url: string;
  /** The connections made to the proxy so far (refused ones too). */
  readonly connections: number;
  /** While true, each new connection is ended at once, before the server is reached (`Connection terminated unexpectedly`). */
  refusing: boolean;
  /**
   * While true, the server has stopped answering without closing anything (a network partition, a
   * firewall dropping packets, a hung server): every connection stays open but no byte goes through
   * in either direction, nor its end; a new connection is taken but reaches nothing. Set back to
   * false, what was held goes through, as TCP delivers it once a partition heals, and new connections
   * reach the server again.
   */
  silent: boolean;
  /** Cuts every connection through the proxy (a pool's connections); new ones are made as before (or refused while `refusing`). */
  cut(): void;
  /** The server gone: the proxy stops listening (new connections: ECONNREFUSED) and its connections are cut. Idempotent. */
  close(): Promise<void>;
}

/** Starts a proxy on 127.0.0.1 to the server of `databaseUrl`. */
export const startPostgresProxy = async (databaseUrl: string): Promise<PostgresProxy> => {
  const target = new URL(databaseUrl);
  const sockets = new Set<Socket>();
  /** The connections through the proxy, each its client's socket and the server's. */
  const pairs = new Set<readonly [Socket, Socket]>();
  /** Connections taken while silent, reaching the server once it answers again. */
  const held = new Set<Socket>();
  let connections = 0;
  let closed = false;
  let silent = false;
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  };
  const reach = (client: Socket): void => {
    const upstream = new Socket({ allowHalfOpen: true });
    upstream.connect(Number(target.port || 5432), target.hostname);
    track(upstream);
    const pair = [client, upstream] as const;
    pairs.add(pair);
    upstream.on('close', () => pairs.delete(pair));
    // A side closed or reset closes the other (at once, or once the silence ends), as the peer's
    // reset reaches the other end when a partition heals.
    client.on('close', () => silent || upstream.destroy());
    upstream.on('close', () => silent || client.destroy());
    client.pipe(upstream).pipe(client);
  };
  const proxy = {
    refusing: false,
    get connections() {
      return connections;
    },
    get silent() {
      return silent;
    },
    set silent(value: boolean) {
      if (value === silent) return;
      silent = value;
      for (const [client, upstream] of pairs) {
        if (value) {
          // Nothing read, so nothing forwarded: the bytes (and an end) wait in the sockets' buffers.
          client.unpipe(upstream);
          upstream.unpipe(client);
          client.pause();
          upstream.pause();
        } else if (client.destroyed || upstream.destroyed) {
          client.destroy();
          upstream.destroy();
        } else {
          client.pipe(upstream);
          upstream.pipe(client);
        }
      }
      if (!value) {
        for (const client of held) if (!client.destroyed) reach(client);
        held.clear();
      }
    },
  } as { refusing: boolean; silent: boolean; readonly connections: number };
  // Half-open allowed: a client's end is passed on (or held while silent), not answered by the proxy itself.
  const server = createServer({ allowHalfOpen: true }, (client) => {
    connections++;
    client.on('error', () => undefined);
    if (proxy.refusing) {
      client.destroy();
      return;
    }
    track(client);
    if (silent) {
      client.pause();
      held.add(client);
      return;
    }
    reach(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const via = new URL(databaseUrl);
  via.hostname = '127.0.0.1';
  via.port = String((server.address() as { port: number }).port);
  const cut = (): void => {
    for (const socket of sockets) socket.destroy();
  };
  return Object.assign(proxy, {
    url: via.toString(),
    cut,
    close: async (): Promise<void> => {
      if (closed) return;
      closed = true;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        cut();
      });
    },
  });
};

/**
 * Ends (pg_terminate_backend, as a fast shutdown does: 57P01) the other sessions whose
 * pg_stat_activity row matches `where`, looking every 25 ms until one is found, at most `tries`
 * times; how many were ended.
 */
export const endSessions = async (client: pg.Client, where: string, tries = 400): Promise<number> => {
  for (let i = 0; i < tries; i++) {
    const ended = (await client.query(`select pg_terminate_backend(pid) from pg_stat_activity where (${where}) and pid <> pg_backend_pid()`)).rowCount ?? 0;
    if (ended !== 0) return ended;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return 0;
};

/**
 * Holds pg-boss's job inserts on `databaseUrl` behind a table lock while `insert` starts one,
 * ends that insert's session while it waits (57P01), lets go of the lock, and resolves with what
 * `insert` came to. The task queue's other statements are untouched.
 */
export const endHeldQueueInsert = async <T>(databaseUrl: string, insert: () => Promise<T>): Promise<T> => {
  const locker = new pg.Client({ connectionString: databaseUrl });
  const admin = new pg.Client({ connectionString: databaseUrl });
  try {
    await locker.connect();
    await locker.query('begin');
    await locker.query('lock table pgboss.job in access exclusive mode');
    const started = insert();
    // Not left unhandled should the session not be found: that failure is the one to report.
    started.catch(() => undefined);
    await admin.connect();
    const ended = await endSessions(admin, "wait_event_type = 'Lock' and query like '%INSERT INTO pgboss.job%'");
    expect(ended, 'the held insert was found').to.equal(1);
    await locker.query('rollback');
    return await started;
  } finally {
    await locker.end().catch(() => undefined);
    await admin.end().catch(() => undefined);
  }
};

/**
 * Stops the embedded database of `dataDir` (open as `database`) with a PANIC, as on a full disk
 * (embedded-disk-full.test.ts, which needs root): its write-ahead log's directory replaced by a
 * file, the next segment cannot be made. What the statement that met it rejected with.
 */
export const panicEmbeddedDatabase = async (database: Database, dataDir: string): Promise<Error> => {
  await sql(database, 'create table fill (n int)');
  const wal = join(dataDir, 'pglite', 'pg_wal');
  await rename(wal, `${wal}.away`);
  await writeFile(wal, 'not a directory');
  return sql(database, 'insert into fill select generate_series(1, 1000000)').then(
    () => expect.fail('the insert survived a missing write-ahead log'),
    (error: Error) => error,
  );
};
