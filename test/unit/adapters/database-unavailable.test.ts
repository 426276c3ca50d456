import { EventEmitter } from 'node:events';
import { expect } from 'chai';
import { answerFor } from '../../../src/adapters/http/error-status.js';
import { DatabaseUnavailable, guardPool, unavailableOr } from '../../../src/adapters/shared/database-unavailable.js';

/*
 * Which errors of a PostgreSQL driver (pg, under the ORM and under the task queue's pg-boss) say
 * that the server cannot be used for now — answered 503 with Retry-After — and which are the
 * statement's own (a 500, or what the caller makes of them).
 */

/** An error as pg gives it: a message and, for most, a code (Node's, or PostgreSQL's SQLSTATE). */
const pgError = (message: string, code?: string): Error => Object.assign(new Error(message), code === undefined ? {} : { code });

describe('unavailableOr (the database cannot be used for now)', () => {
  it("translates a connection refused or cut, a session the server ended, a server that takes no session now, and pg's own texts of a lost connection", () => {
    const unavailable = [
      pgError('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
      pgError('read ECONNRESET', 'ECONNRESET'),
      pgError('getaddrinfo ENOTFOUND db', 'ENOTFOUND'),
      pgError('connect ETIMEDOUT 10.0.0.5:5432', 'ETIMEDOUT'),
      pgError('terminating connection due to administrator command', '57P01'),
      pgError('terminating connection because of crash of another server process', '57P02'),
      pgError('the database system is starting up', '57P03'),
      pgError('sorry, too many clients already', '53300'),
      pgError('too many connections for role "agw"', '53300'),
      pgError('connection failure', '08006'),
      pgError('Connection terminated unexpectedly'),
      pgError('Connection terminated'),
      pgError('timeout exceeded when trying to connect'),
      pgError('Client has encountered a connection error and is not queryable'),
    ];
    for (const error of unavailable) {
      const translated = unavailableOr(error);
      expect(translated, error.message).to.be.instanceOf(DatabaseUnavailable);
      expect((translated as Error).cause, error.message).to.equal(error);
      const answer = answerFor(translated);
      expect([answer.status, answer.message, answer.retryAfterSeconds], error.message).to.deep.equal([503, 'Database unavailable; try again shortly', 5]);
    }
  });

  it("leaves a statement's own failure, and what is no error, as it is", () => {
    for (const error of [
      pgError('duplicate key value violates unique constraint "x"', '23505'),
      pgError('canceling statement due to statement timeout', '57014'),
      pgError('relation "x" does not exist', '42P01'),
      pgError('deadlock detected', '40P01'),
      pgError('could not extend file: No space left on device', '53100'),
      new Error('Task queue q is ordered: every task needs a group'),
    ])
      expect(unavailableOr(error), error.message).to.equal(error);
    const once = new DatabaseUnavailable('already');
    expect(unavailableOr(once)).to.equal(once);
    expect(unavailableOr('ECONNREFUSED')).to.equal('ECONNREFUSED');
  });
});

describe('guardPool', () => {
  /** A pool handing out one client, recording each release (pg-pool throws at a second one per checkout). */
  const fakePool = () => {
    const releases: unknown[] = [];
    const client = Object.assign(new EventEmitter(), {
      query: async () => ({ rows: [] }),
      release: (error?: unknown) => {
        if (releases.length > 0) throw new Error('Release called on client which has already been released to the pool.');
        releases.push(error ?? 'released');
      },
    });
    const pool = { connect: async (..._args: unknown[]) => client };
    guardPool(pool);
    return { pool, releases };
  };

  it('gives a checked-out client whose connection was lost back to the pool, with an error (a transaction cut off never releases it); its holder releasing it then does nothing', async () => {
    const { pool, releases } = fakePool();
    const client = (await pool.connect()) as EventEmitter & { release(error?: unknown): void };
    client.emit('end');
    expect(releases).to.have.length(1);
    expect(String(releases[0])).to.contain('lost while the client was checked out');
    client.release();
    expect(releases).to.have.length(1);
  });

  it('leaves a client its holder released alone when its connection ends later (the pool ending it)', async () => {
    const { pool, releases } = fakePool();
    const client = (await pool.connect()) as EventEmitter & { release(error?: unknown): void };
    client.release();
    client.emit('end');
    expect(releases).to.deep.equal(['released']);
  });
});
