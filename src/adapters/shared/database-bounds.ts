import type pg from 'pg';

/**
 * How long a connection to the PostgreSQL server may take to be made (also: to be taken from a
 * full pool, and to be closed), and how long a statement may wait for its answer
 * (DATABASE_CONNECT_TIMEOUT_MS, DATABASE_QUERY_TIMEOUT_MS).
 */
export interface DatabaseTimeouts {
  readonly connectMs: number;
  readonly queryMs: number;
}

/**
 * The defaults. A connection is made in milliseconds on a network, and 5 s is what start-up
 * already gave a server that does not answer. The service's statements take milliseconds; the
 * longest (the retention sweep's deletes, pg-boss's maintenance) seconds on large tables: 30 s
 * leaves them room, and bounds a request's wait on a server gone silent well below the hours
 * the kernel takes to give up on its connection. Migrations are not bounded (`unbounded`).
 */
export const DATABASE_TIMEOUTS: DatabaseTimeouts = { connectMs: 5_000, queryMs: 30_000 };

/**
 * TCP keepalive's first probe on an idle connection (the kernel's default is two hours): a NAT or
 * firewall that forgets an idle connection, or a server gone, shows on a connection nobody uses.
 */
export const KEEPALIVE_DELAY_MS = 10_000;

/**
 * A statement that got no answer within its bound: its connection was closed. Code ETIMEDOUT: the
 * database counts as unavailable (503). `setting`: the bound's, DATABASE_QUERY_TIMEOUT_MS, or
 * DATABASE_CONNECT_TIMEOUT_MS when the server was known not to answer (see `boundedConnections`).
 */
export class StatementUnanswered extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(ms: number, setting: 'DATABASE_QUERY_TIMEOUT_MS' | 'DATABASE_CONNECT_TIMEOUT_MS' = 'DATABASE_QUERY_TIMEOUT_MS') {
    super(
      setting === 'DATABASE_QUERY_TIMEOUT_MS'
        ? `the PostgreSQL server did not answer a statement within ${ms} ms (DATABASE_QUERY_TIMEOUT_MS); its connection was closed`
        : `the PostgreSQL server did not answer a statement within ${ms} ms while it answered no other (DATABASE_CONNECT_TIMEOUT_MS); its connection was closed`,
    );
    this.name = 'StatementUnanswered';
  }
}

/** The pg pool options and the client class that bound one pool's connections; `unbounded` lifts the statements' bound for a while. */
export interface BoundedConnections {
  /** For pg's Pool: connection timeout, TCP keepalive, and the client class that bounds statements and ends. */
  readonly poolOptions: {
    readonly connectionTimeoutMillis: number;
    readonly keepAlive: true;
    readonly keepAliveInitialDelayMillis: number;
    readonly Client: typeof pg.Client;
  };
  /** Runs `work` with no bound on the statements of this pool's connections (migrations, which can take long on large tables). */
  unbounded<T>(work: () => Promise<T>): Promise<T>;
  /**
   * The service is stopping: from now on a statement unanswered for `connectMs`, while the server
   * answered nothing of the pool for `connectMs`, has the server tried with a new connection; when
   * that gets no answer within `connectMs` either, the server is known silent and the statement is
   * given up on (see `boundedConnections`). A server that takes the connection is slow, not
   * silent: its statements keep `queryMs`.
   */
  stopping(): void;
}

type Callback = (error: Error | null, result?: unknown) => void;

/** A connection's errors for want of a route to the server's host: no answer of the server's (`boundedConnections`, its check). */
const NO_ROUTE: ReadonlySet<unknown> = new Set(['EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN']);

/**
 * Statements that change the schema or maintain tables, which may rightly take minutes on large
 * tables: pg-boss's background migrations and index rebuilds (CREATE INDEX CONCURRENTLY, REINDEX),
 * VACUUM. They are not bounded (their connections are, by keepalive). Their first word, after
 * whitespace and comments (`leadingEnd`): pg-boss's background migrations send their commands
 * behind a tag, `/* pgboss bam 7 *\/` and a line break (bam.js), which the start of the text alone
 * would take for a statement to bound, cutting an index build on a large job table after the bound.
 */
const MAINTENANCE = /(?:create|alter|drop|reindex|vacuum|analyze|cluster|refresh|do)\b/iy;

/** Whitespace as PostgreSQL's scanner skips it: space, tab, line feed, carriage return, form feed, vertical tab. */
const isSpace = (code: number): boolean => code === 32 || (code >= 9 && code <= 13);

/**
 * Where `text`'s first word begins, past whitespace, `--` line comments and `/* *\/` block comments
 * (nested, as PostgreSQL reads them); `text.length` when a comment is not closed. A loop, not a
 * regular expression: one over comments and dashes backtracks for long when no word follows.
 */
const leadingEnd = (text: string): number => {
  let at = 0;
  for (;;) {
    while (at < text.length && isSpace(text.charCodeAt(at))) at++;
    if (text.startsWith('--', at)) {
      const end = text.indexOf('\n', at);
      if (end < 0) return text.length;
      at = end + 1;
    } else if (text.startsWith('/*', at)) {
      let depth = 1;
      at += 2;
      while (depth > 0) {
        if (at >= text.length) return text.length;
        if (text.startsWith('/*', at)) {
          depth++;
          at += 2;
        } else if (text.startsWith('*/', at)) {
          depth--;
          at += 2;
        } else at++;
      }
    } else return at;
  }
};

/** Whether `text` is a schema or maintenance statement (MAINTENANCE), whatever whitespace and comments come first. */
const isMaintenance = (text: string): boolean => {
  MAINTENANCE.lastIndex = leadingEnd(text);
  return MAINTENANCE.test(text);
};

/** The text of a statement as pg's `query` takes it (a string or a config). */
const statementText = (first: unknown): string | undefined =>
  typeof first === 'string' ? first : typeof (first as { text?: unknown } | null)?.text === 'string' ? (first as { text: string }).text : undefined;
type Streamed = { connection?: { stream?: { destroy(error?: Error): void }; on(event: 'readyForQuery', listener: () => void): unknown } };

/** A bounded statement under way: when it was sent, its timer, and what its timer is for. */
interface Pending {
  readonly start: number;
  readonly client: Streamed;
  timer: NodeJS.Timeout | undefined;
  /** What the timer does: give the statement up, or (stopping) see whether the server still answers. */
  next: 'cut' | 'check';
  /** Whether it had the server checked already (stopping). */
  checked: boolean;
}

/**
 * The connections of one pool bounded by `timeouts`: a connection not made within `connectMs`
 * fails (pg's connectionTimeoutMillis, which also bounds the wait for a connection of a full
 * pool); an idle connection is probed by TCP keepalive; a statement (and what was queued behind it
 * on its connection) not answered within `queryMs` fails with StatementUnanswered, and its
 * connection is closed — a server that stops answering without closing the connection (a network
 * partition, packets dropped by a firewall, a hung server) would otherwise have it wait until the
 * kernel gives up on the connection, hours with the defaults; a connection whose end the server
 * does not answer is let go after `connectMs` (a pool's end, a stop, waited for it as long).
 * Schema and maintenance statements (MAINTENANCE) are not bounded.
 *
 * Once a statement was given up on, the server is tried with a new connection (`check`, one at a
 * time): when that gets no answer within `connectMs` either, and the server answered nothing else
 * meanwhile, it is known silent, since `connectMs` before the check began or its last answer on
 * any connection of the pool, whichever is later. Until it answers again (a statement's answer on
 * any connection of the pool, a new connection made), a statement is given up on once it has
 * waited `connectMs` of that silence — the requests that follow are answered 503 within about the
 * connection bound, not each after the statement bound, and a stop's last statements end in
 * seconds. A working server whose statement waited for a lock or ran long takes the check's
 * connection (or refuses it: an answer too, but not a failure for want of a route to its host): it
 * is not taken for silent, and the pool's other statements under way keep their `queryMs`.
 *
 * `stopping` (the service's stop): a statement unanswered for `connectMs`, while the server
 * answered nothing for `connectMs`, has the server tried the same way; a server that answers is
 * looked at again `connectMs` after its last answer. A slow statement of a server that takes the
 * check's connection is left its `queryMs`: a stop still lets the work under way end within its
 * grace period.
 *
 * `Base`: pg's Client (passed in: this module is loaded by start-up's first phase, which on the
 * embedded database never loads pg). pg's own `query_timeout` is not used: it leaves the timed-out
 * statement on its connection, which the pool hands out again and whose next statements wait
 * behind it; and it cannot be lifted for the migrations.
 */
export const boundedConnections = (timeouts: DatabaseTimeouts, Base: typeof pg.Client): BoundedConnections => {
  const { connectMs, queryMs } = timeouts;
  let unbounded = 0;
  let stopping = false;
  /** The bounded statements under way. */
  const pending = new Set<Pending>();
  /** When the server last answered on a connection of the pool (ReadyForQuery: a statement answered, a connection made). */
  let lastAnswer = Number.NEGATIVE_INFINITY;
  /** Since when the server is known silent (a statement was given up on, or a check got no answer); undefined while it answers. */
  let silentSince: number | undefined;
  /** The server's check under way (`stopping`). */
  let checking: Promise<void> | undefined;
  /** The connection settings of the pool's clients, for the check's connection. */
  let settings: pg.ClientConfig | undefined;

  /** When `statement` is given up on: `queryMs` after it was sent, or `connectMs` of the server's silence if sooner. */
  const deadline = (statement: Pending): number =>
    silentSince === undefined ? statement.start + queryMs : Math.min(statement.start + queryMs, Math.max(statement.start, silentSince) + connectMs);

  const schedule = (statement: Pending): void => {
    clearTimeout(statement.timer);
    let at = deadline(statement);
    statement.next = 'cut';
    // Stopping: the server is tried once the statement has waited connectMs since it was sent
    // and since the server's last answer.
    const look = Math.max(statement.start, lastAnswer) + connectMs;
    if (stopping && silentSince === undefined && !statement.checked && look < at) {
      at = look;
      statement.next = 'check';
    }
    statement.timer = setTimeout(fire, Math.max(0, at - performance.now()), statement);
  };
  const rescheduleAll = (): void => {
    for (const statement of pending) schedule(statement);
  };

  const silent = (since: number): void => {
    if (silentSince !== undefined) return;
    silentSince = since;
    rescheduleAll();
  };
  const answered = (): void => {
    lastAnswer = performance.now();
    if (silentSince === undefined) return;
    silentSince = undefined;
    rescheduleAll();
  };

  const cut = (statement: Pending): void => {
    pending.delete(statement);
    const error =
      silentSince === undefined || statement.start + queryMs <= Math.max(statement.start, silentSince) + connectMs
        ? new StatementUnanswered(queryMs)
        : new StatementUnanswered(connectMs, 'DATABASE_CONNECT_TIMEOUT_MS');
    // Known silent only once the server takes no new connection either (`check`): a working
    // server whose statement waited for a lock, or ran long, answers it at once, and its other
    // statements under way keep their bound.
    if (silentSince === undefined) void check();
    statement.client.connection?.stream?.destroy(error);
  };

  /**
   * Whether the server takes a new connection within `connectMs`. One refused, or failing
   * otherwise, is an answer too, except a failure for want of a route to the server's host (a
   * host down on the local network, a router's "unreachable"): nothing answered there.
   */
  const reaches = async (): Promise<boolean> => {
    const client = new Base({ ...settings, connectionTimeoutMillis: 0, keepAlive: false });
    client.on('error', () => undefined);
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      (client as unknown as Streamed).connection?.stream?.destroy();
    }, connectMs);
    try {
      await client.connect();
    } catch (error) {
      return !late && !NO_ROUTE.has((error as { code?: unknown } | null)?.code);
    } finally {
      clearTimeout(timer);
    }
    const ended = setTimeout(() => (client as unknown as Streamed).connection?.stream?.destroy(), connectMs);
    ended.unref();
    client.end().then(
      () => clearTimeout(ended),
      () => clearTimeout(ended),
    );
    return true;
  };
  /** Tries the server once at a time; silent when it takes no new connection and answered nothing meanwhile. */
  const check = (): Promise<void> =>
    (checking ??= (async () => {
      const since = lastAnswer;
      const began = performance.now();
      if (await reaches()) answered();
      else if (lastAnswer === since) silent(Math.max(began - connectMs, lastAnswer));
    })()
      // A client that cannot even be made (never with the settings the pool's clients were made with): nothing learned.
      .catch(() => undefined)
      .finally(() => {
        checking = undefined;
        rescheduleAll();
      }));

  function fire(statement: Pending): void {
    if (!pending.has(statement)) return;
    statement.timer = undefined;
    if (statement.next === 'cut') cut(statement);
    // The server answered something within the last connectMs: slow, not silent; looked at again
    // connectMs after that answer.
    else if (lastAnswer > performance.now() - connectMs) schedule(statement);
    else {
      statement.checked = true;
      void check();
    }
  }

  class BoundedClient extends Base {
    constructor(config?: pg.ClientConfig) {
      super(config);
      settings ??= config;
      // A connection closed below emits `error` (and its statements reject with it): never
      // an uncaught exception, whoever holds the client.
      this.on('error', () => undefined);
      // The server answered (a statement, or the connection made): not silent.
      (this as unknown as Streamed).connection?.on('readyForQuery', answered);
    }

    // biome-ignore lint/suspicious/noExplicitAny: pg's overloads (promise, callback, submittable) are passed through as they are.
    override query(...args: any[]): any {
      const query = super.query as (...a: unknown[]) => unknown;
      // A submittable (a cursor) is read in steps by its holder, and a callback inside the
      // statement's config cannot be seen ending: neither is bounded here (the service uses neither).
      if (
        unbounded > 0 ||
        queryMs <= 0 ||
        typeof args[0]?.submit === 'function' ||
        typeof args[0]?.callback === 'function' ||
        isMaintenance(statementText(args[0]) ?? '')
      )
        return query.apply(this, args);
      const statement: Pending = { start: performance.now(), client: this as unknown as Streamed, timer: undefined, next: 'cut', checked: false };
      pending.add(statement);
      schedule(statement);
      const settled = (): void => {
        clearTimeout(statement.timer);
        pending.delete(statement);
      };
      const last = args.length - 1;
      const callback = args[last] as Callback | undefined;
      if (typeof callback === 'function') {
        args[last] = (error: Error | null, result?: unknown) => {
          settled();
          callback(error, result);
        };
      }
      let result: unknown;
      try {
        result = query.apply(this, args);
      } catch (error) {
        settled();
        throw error;
      }
      if (result instanceof Promise) result.then(settled, settled);
      else if (typeof callback !== 'function') settled();
      return result;
    }

    // biome-ignore lint/suspicious/noExplicitAny: pg's overloads (promise, callback).
    override end(...args: any[]): any {
      const timer = setTimeout(() => (this as unknown as Streamed).connection?.stream?.destroy(), connectMs);
      timer.unref();
      const ended = (super.end as (...a: unknown[]) => unknown).apply(this, args);
      this.once('end', () => clearTimeout(timer));
      return ended;
    }
  }
  return {
    poolOptions: { connectionTimeoutMillis: connectMs, keepAlive: true, keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS, Client: BoundedClient },
    unbounded: async (work) => {
      unbounded++;
      try {
        return await work();
      } finally {
        unbounded--;
      }
    },
    stopping: () => {
      if (stopping) return;
      stopping = true;
      rescheduleAll();
    },
  };
};
