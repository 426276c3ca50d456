import { expect } from 'chai';
import pg from 'pg';
import { answerFor } from '../../../src/adapters/http/error-status.js';
import { createPino, PinoLogger } from '../../../src/adapters/logging/pino-logger.js';
import { Database } from '../../../src/adapters/persistence/database.js';
import { ApiKeyEntity } from '../../../src/adapters/persistence/entities/api-key-entity.js';
import { MikroOrmKeyRepository } from '../../../src/adapters/persistence/mikro-orm-key-repository.js';
import { migratedDataDir } from '../../support/data-dirs.js';
import { sql } from '../../support/databases.js';
import { tempDir } from '../../support/gateway-process.js';
import { within } from '../../support/time-limit.js';
import { createScratchDatabase, describeWithPostgres, type ScratchDatabase } from '../../support/postgres.js';
import { endSessions, panicEmbeddedDatabase, type PostgresProxy, startPostgresProxy } from '../../support/postgres-outage.js';

const logger = new PinoLogger(createPino('silent'));

/** What `promise` rejected with (the test fails if it resolved). */
const refusal = (promise: Promise<unknown>): Promise<Error> =>
  promise.then(
    () => expect.fail('the database answered'),
    (error: Error) => error,
  );

/** A 503 `Database unavailable` with Retry-After, as the API answers a failure. */
const expectUnavailable = (error: unknown, what: string): void => {
  const answer = answerFor(error);
  expect({ status: answer.status, message: answer.message, retryAfter: answer.retryAfterSeconds }, `${what}: ${String(error)}`).to.deep.equal({
    status: 503,
    message: 'Database unavailable; try again shortly',
    retryAfter: 5,
  });
  expect(answer.logged, what).to.be.instanceOf(Error);
};

describe('Statements on an embedded database whose thread failed', function () {
  this.timeout(120_000);
  let database: Database | undefined;

  afterEach(async () => {
    await database?.close().catch(() => undefined);
    database = undefined;
  });

  it('are refused with an error answered 503 Database unavailable with Retry-After (the service stops meanwhile), by every path of the ORM', async () => {
    const dataDir = await migratedDataDir('unavailable-pglite');
    const failures: Error[] = [];
    database = await Database.open({ databaseUrl: undefined, dataDir, logger, onEngineFailure: (error) => failures.push(error) });
    const panic = await panicEmbeddedDatabase(database, dataDir);
    expect((panic as { severity?: string }).severity).to.equal('PANIC');
    expect(failures.map((error) => error.message)).to.have.length(1);
    expect(failures[0].message).to.match(/^The embedded database stopped after a PANIC/);

    // The query builder and raw statements (what the adapters use), the entity manager (converted by the ORM), a repository.
    expectUnavailable(await refusal(sql(database, 'select 1')), 'raw statement');
    expectUnavailable(await refusal(database.orm.em.fork().createQueryBuilder(ApiKeyEntity).select('id').execute('all')), 'query builder');
    expectUnavailable(await refusal(database.orm.em.fork().find(ApiKeyEntity, {})), 'entity manager');
    expectUnavailable(await refusal(new MikroOrmKeyRepository(database).list()), 'repository');
  });
});

describeWithPostgres('Statements on a PostgreSQL server that ended the connection or cannot be reached', function () {
  this.timeout(60_000);
  let scratch: ScratchDatabase | undefined;
  let database: Database | undefined;
  let proxy: PostgresProxy | undefined;

  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
    await database?.close().catch(() => undefined);
    database = undefined;
    await scratch?.drop();
    scratch = undefined;
  });

  it('are refused with an error answered 503 Database unavailable with Retry-After; after a session ended, the next statement connects again', async () => {
    scratch = await createScratchDatabase();
    // The gateway reaches the server through a proxy this test can take away: a server gone.
    proxy = await startPostgresProxy(scratch.url);
    database = await Database.open({ databaseUrl: proxy.url, dataDir: await tempDir('unavailable-pg'), logger });
    await database.migrate();

    // A statement whose session the server ends (a fast shutdown, pg_terminate_backend): 57P01.
    const running = refusal(sql(database, 'select pg_sleep(30)'));
    const admin = new pg.Client({ connectionString: scratch.url });
    await admin.connect();
    try {
      await endSessions(admin, "query = 'select pg_sleep(30)'");
    } finally {
      await admin.end();
    }
    expectUnavailable(await running, 'statement whose session ended');
    // The pool connects again: a statement is answered. The pool may first hand out the client
    // whose session ended (before its end was noticed): that statement is refused as unavailable too.
    let answered: unknown;
    for (let attempt = 0; attempt < 3 && answered === undefined; attempt++) {
      try {
        answered = await sql(database, 'select 1 as one');
      } catch (error) {
        expectUnavailable(error, `statement ${attempt + 1} after the session ended`);
      }
    }
    expect(answered).to.deep.equal([{ one: 1 }]);

    // The server gone: its connections cut, new ones refused (ECONNREFUSED).
    await proxy.close();
    proxy = undefined;
    expectUnavailable(await refusal(sql(database, 'select 1')), 'raw statement, server gone');
    expectUnavailable(await refusal(database.orm.em.fork().find(ApiKeyEntity, {})), 'entity manager, server gone');
    expectUnavailable(await refusal(new MikroOrmKeyRepository(database).list()), 'repository, server gone');
  });

  it('gives back the connection of a transaction cut off: after more of them than the pool holds (10), a statement is still answered, and the database closes', async () => {
    scratch = await createScratchDatabase();
    proxy = await startPostgresProxy(scratch.url);
    database = await Database.open({ databaseUrl: proxy.url, dataDir: await tempDir('unavailable-pg'), logger });
    await database.migrate();
    // Bounded: before, each kept its connection checked out for good, the tenth transaction
    // waited for one for ever, and the pool's end (the close) waited for them.
    for (let i = 0; i < 12; i++) {
      // Its connection cut while it runs: the next statement and the rollback fail on it.
      const cut = database.orm.em.fork().transactional(async (em) => {
        await em.getConnection().execute('select 1');
        proxy!.cut();
        await em.getConnection().execute('select 1');
      });
      expectUnavailable(await within(20_000, `transaction ${i + 1}`, refusal(cut)), `transaction ${i + 1} cut off`);
    }
    expect(await within(20_000, 'a statement', sql(database, 'select 1 as one'))).to.deep.equal([{ one: 1 }]);
    proxy.refusing = true;
    proxy.cut();
    await within(20_000, 'the close', database.close());
    database = undefined;
  });
});
