import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'chai';
import pg from 'pg';
import { type BoundedConnections, boundedConnections, type DatabaseTimeouts, StatementUnanswered } from '../../../src/adapters/shared/database-bounds.js';
import { within } from '../../support/time-limit.js';
import { createScratchDatabase, describeWithPostgres, type ScratchDatabase } from '../../support/postgres.js';
import { type PostgresProxy, startPostgresProxy } from '../../support/postgres-outage.js';

/*
 * The bounds of a pool's connections (database-bounds.ts) on a real server, on its own: a
 * statement not answered in time fails and its connection is replaced, not handed out again with
 * the statement still waiting on it; migrations (`unbounded`) and schema statements are not cut;
 * a connection whose end the server does not answer is let go.
 */

const TIMEOUTS = { connectMs: 500, queryMs: 400 };
/** Far longer than the bounds: a wait that ends within it ended by a bound. */
const BOUND_MS = 10_000;

describeWithPostgres('Bounded PostgreSQL connections', function () {
  this.timeout(60_000);
  let scratch: ScratchDatabase | undefined;
  let proxy: PostgresProxy | undefined;
  let pool: pg.Pool | undefined;

  afterEach(async () => {
    if (proxy) proxy.silent = false;
    await pool?.end().catch(() => undefined);
    pool = undefined;
    await proxy?.close();
    proxy = undefined;
    await scratch?.drop();
    scratch = undefined;
  });

  const open = async (
    viaProxy = false,
    { timeouts = TIMEOUTS, max = 1, Base = pg.Client }: { timeouts?: DatabaseTimeouts; max?: number; Base?: typeof pg.Client } = {},
  ): Promise<{ pool: pg.Pool } & BoundedConnections> => {
    scratch = await createScratchDatabase();
    if (viaProxy) proxy = await startPostgresProxy(scratch.url);
    const bounds = boundedConnections(timeouts, Base);
    pool = new pg.Pool({ connectionString: proxy?.url ?? scratch.url, max, ...bounds.poolOptions });
    pool.on('error', () => undefined);
    return { pool, ...bounds };
  };

  /** A statement's failure (null when it succeeded) and how long it took, in ms. */
  const failureOf = async (what: string, statement: Promise<unknown>): Promise<{ failed: Error | null; tookMs: number }> => {
    const began = performance.now();
    const failed = await within(BOUND_MS, what, statement).then(
      () => null,
      (error: Error) => error,
    );
    return { failed, tookMs: performance.now() - began };
  };

  it("fails a statement not answered within the bound (promise and callback), and the pool's next statement runs on a new connection", async () => {
    const { pool } = await open();
    const first = (await pool.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0].pid;

    const failed = await within(BOUND_MS, 'a statement past its bound', pool.query('select pg_sleep(5)')).then(
      () => null,
      (error: Error) => error,
    );
    expect(failed).to.be.instanceOf(StatementUnanswered);
    expect((failed as StatementUnanswered).code).to.equal('ETIMEDOUT');

    // One connection in the pool: the statement's connection was closed, not handed out with the sleep still on it.
    const next = (await within(BOUND_MS, 'the next statement', pool.query<{ pid: number }>('select pg_backend_pid() as pid'))).rows[0].pid;
    expect(next).to.not.equal(first);

    const viaCallback = await within(
      BOUND_MS,
      'a statement past its bound, with a callback',
      new Promise<Error | null>((resolve) => {
        pool.query('select pg_sleep(5)', (error: Error | undefined) => resolve(error ?? null));
      }),
    );
    expect(viaCallback).to.be.instanceOf(StatementUnanswered);
  });

  it('leaves statements unbounded inside `unbounded` (migrations) and schema statements, but not the others after it', async () => {
    const { pool, unbounded } = await open();
    const rows = await within(
      BOUND_MS,
      'an unbounded statement',
      unbounded(() => pool.query('select pg_sleep(0.8) as slept')),
    );
    expect(rows.rowCount).to.equal(1);
    await within(BOUND_MS, 'a schema statement', pool.query('do $$ begin perform pg_sleep(0.8); end $$'));
    const failed = await within(BOUND_MS, 'a statement after it', pool.query('select pg_sleep(0.8)')).then(
      () => null,
      (error: Error) => error,
    );
    expect(failed).to.be.instanceOf(StatementUnanswered);
  });

  it('leaves a schema statement unbounded behind leading comments (pg-boss tags its background index builds so), and bounds the others whatever comes first', async () => {
    const { pool } = await open();
    // Each sleeps twice the bound: cut if bounded.
    const schema = [
      // pg-boss's background migrations (bam.js): `${bamCommandTag(id)}\n${command}`, a CREATE INDEX CONCURRENTLY.
      '/* pgboss bam 7 */\ndo $$ begin perform pg_sleep(0.8); end $$',
      '-- a line comment\n  DO $$ begin perform pg_sleep(0.8); end $$',
      '/* outer /* nested */ still a comment */ do $$ begin perform pg_sleep(0.8); end $$',
    ];
    for (const text of schema) await within(BOUND_MS, `a schema statement: ${text}`, pool.query(text));
    // Not exempted by accident: a comment, or a common table expression, before a statement that is not one.
    const others = [
      '/* create */ select pg_sleep(0.8)',
      '-- drop\nselect pg_sleep(0.8)',
      '/* unclosed comment, do',
      'with slept as (select pg_sleep(0.8)) select * from slept',
    ];
    for (const text of others) {
      const failed = await within(BOUND_MS, `a statement: ${text}`, pool.query(text)).then(
        () => null,
        (error: Error) => error,
      );
      // An unclosed comment is a syntax error the server answers at once: answered, not cut.
      if (text.startsWith('/* unclosed')) expect(failed?.message, text).to.match(/syntax|unterminated/i);
      else expect(failed, text).to.be.instanceOf(StatementUnanswered);
    }
  });

  it('gives up a new connection, and the end of one, that a silent server does not answer', async () => {
    const { pool } = await open(true);
    const client = await pool.connect();
    proxy!.silent = true;
    // The end waits for the server's goodbye, which never comes while it is silent.
    await within(BOUND_MS, "a client's end while the server is silent", client.end());
    client.release();
    const failed = await within(BOUND_MS, 'a new connection while the server is silent', pool.connect()).then(
      () => null,
      (error: Error) => error,
    );
    expect(failed?.message).to.match(/timeout/);
    proxy!.silent = false;
    const answered = await within(BOUND_MS, 'a statement once the server answers again', pool.query('select 1 as one'));
    expect(answered.rows).to.deep.equal([{ one: 1 }]);
  });
  /** Far apart, so that which of them ended a wait shows: the connection bound, then the statement bound. */
  const APART = { connectMs: 400, queryMs: 3_000 };

  it("bounds the pool's statements by the connection bound once one went unanswered, until the server answers again", async () => {
    const { pool } = await open(true, { timeouts: APART, max: 2 });
    // Two connections made, both idle in the pool: the next two statements need no new connection.
    await Promise.all([pool.query('select 1'), pool.query('select 1')]);
    expect(proxy!.connections).to.equal(2);

    proxy!.silent = true;
    const first = await failureOf('the first statement while the server is silent', pool.query('select 1'));
    expect(first.failed).to.be.instanceOf(StatementUnanswered);
    expect(first.failed?.message).to.contain('DATABASE_QUERY_TIMEOUT_MS');
    expect(first.tookMs, 'the first statement (ms), given up after the statement bound').to.be.at.least(APART.queryMs - 50);
    // On the other connection, made before the silence: the server is known silent now (it took no new connection either).
    const second = await failureOf('the second statement while the server is silent', pool.query('select 1'));
    expect(second.failed).to.be.instanceOf(StatementUnanswered);
    expect(second.failed?.message).to.contain('DATABASE_CONNECT_TIMEOUT_MS');
    expect(second.tookMs, 'the second statement (ms): the connection bound, 400 ms, not the statement bound, 3000 ms').to.be.below(APART.queryMs / 2);
    // The pool's own connections were not replaced: one other connection, the check's, tried when the first was given up on.
    expect(proxy!.connections, "the check's connection, no other").to.equal(3);

    proxy!.silent = false;
    expect((await within(BOUND_MS, 'a statement once the server answers again', pool.query('select 1 as one'))).rows).to.deep.equal([{ one: 1 }]);
    // Answered again: the statement bound is back, and a statement slower than the connection bound is not cut.
    const slow = await failureOf('a statement of 1 s once the server answers again', pool.query('select pg_sleep(1)'));
    expect(slow.failed).to.equal(null);
  });

  it('gives up a statement within twice the connection bound while stopping when the server takes no new connection either, and leaves a slow one of a server that does', async () => {
    const { pool, stopping } = await open(true, { timeouts: APART });
    await pool.query('select 1');
    expect(proxy!.connections).to.equal(1);
    stopping();

    // A working server, slow to answer: tried with a new connection, which it takes; not cut.
    const slow = await failureOf('a statement of 1 s while stopping', pool.query('select pg_sleep(1)'));
    expect(slow.failed).to.equal(null);
    expect(proxy!.connections, "the server tried with a connection of the check's own").to.equal(2);

    proxy!.silent = true;
    const unanswered = await failureOf('a statement while stopping and the server is silent', pool.query('select 1'));
    expect(unanswered.failed).to.be.instanceOf(StatementUnanswered);
    expect(unanswered.failed?.message).to.contain('DATABASE_CONNECT_TIMEOUT_MS');
    // Its wait (400 ms), the check's connection (400 ms): not the statement bound (3000 ms).
    expect(unanswered.tookMs, 'the statement (ms), given up within twice the connection bound').to.be.below(APART.queryMs / 2);
    expect(proxy!.connections, "the server tried again, with a connection of the check's own").to.equal(3);
  });

  it('takes a working server that answers a new connection for slow, not silent, when a statement waited out the statement bound: a slower one under way is not cut', async () => {
    const { pool } = await open(false, { timeouts: { connectMs: 400, queryMs: 4_000 }, max: 2 });
    const holder = new pg.Client({ connectionString: scratch!.url });
    await holder.connect();
    try {
      await holder.query('select pg_advisory_lock(1)');
      // Waits behind the lock longer than the statement bound: given up on, on a working server.
      const blocked = failureOf('a statement waiting for a lock', pool.query('select pg_advisory_lock(1)'));
      // Spacing only: the next statement is sent 2 s later, on a new connection, and is answered
      // after the first was given up on (4 s), within its own bound (6 s).
      await delay(2_000);
      const slow = failureOf('a statement of 3 s', pool.query('select pg_sleep(3)'));
      const first = await blocked;
      expect(first.failed).to.be.instanceOf(StatementUnanswered);
      expect(first.failed?.message).to.contain('DATABASE_QUERY_TIMEOUT_MS');
      // The server took the check's connection: not known silent, so the other statement, already
      // past the connection bound since the server's last answer, keeps its statement bound.
      expect((await slow).failed, 'the slower statement under way').to.equal(null);
    } finally {
      await holder.end();
    }
  });

  it('while stopping, tries the server once it answered nothing for the connection bound, also when it answered another statement after this one was sent', async () => {
    const timeouts = { connectMs: 1_000, queryMs: 8_000 };
    const { pool, stopping } = await open(true, { timeouts, max: 2 });
    await Promise.all([pool.query('select 1'), pool.query('select 1')]);
    stopping();
    const holder = new pg.Client({ connectionString: scratch!.url });
    await holder.connect();
    try {
      await holder.query('select pg_advisory_lock(2)');
      // Held by the server behind the lock, on one connection...
      const waiting = failureOf('a statement while stopping, then the server silent', pool.query('select pg_advisory_lock(2)'));
      // ...while the other is answered, after it was sent; then the server stops answering.
      await pool.query('select 1');
      proxy!.silent = true;
      const { failed, tookMs } = await waiting;
      expect(failed).to.be.instanceOf(StatementUnanswered);
      expect(failed?.message).to.contain('DATABASE_CONNECT_TIMEOUT_MS');
      // A connection bound after the last answer, the check's connection (a bound): about 2 s, not 8 s.
      expect(tookMs, 'the statement (ms), given up within about twice the connection bound').to.be.below(timeouts.queryMs / 2);
    } finally {
      await holder.end();
    }
  });

  it("takes the server for silent when the check's connection finds no route to its host (a host down on the local network): no answer of the server's", async () => {
    let noRoute = false;
    /** pg's Client, whose connection for the check (the one made without keepalive) fails at once with EHOSTUNREACH while `noRoute`. */
    class NoRouteClient extends pg.Client {
      readonly #check: boolean;
      constructor(config?: pg.ClientConfig) {
        super(config);
        this.#check = config?.keepAlive === false;
      }
      // biome-ignore lint/suspicious/noExplicitAny: pg's overloads (promise, callback).
      override connect(...args: any[]): any {
        if (noRoute && this.#check) return Promise.reject(Object.assign(new Error('connect EHOSTUNREACH 10.0.0.1:5432'), { code: 'EHOSTUNREACH' }));
        return (super.connect as (...a: unknown[]) => unknown).apply(this, args);
      }
    }
    const { pool } = await open(true, { timeouts: APART, max: 2, Base: NoRouteClient });
    await Promise.all([pool.query('select 1'), pool.query('select 1')]);
    proxy!.silent = true;
    noRoute = true;
    const first = await failureOf('the first statement while the server is silent', pool.query('select 1'));
    expect(first.failed?.message).to.contain('DATABASE_QUERY_TIMEOUT_MS');
    const second = await failureOf('the second statement while the server is silent', pool.query('select 1'));
    expect(second.failed).to.be.instanceOf(StatementUnanswered);
    expect(second.failed?.message).to.contain('DATABASE_CONNECT_TIMEOUT_MS');
    expect(second.tookMs, 'the second statement (ms): the connection bound, 400 ms, not the statement bound, 3000 ms').to.be.below(APART.queryMs / 2);
  });
});
