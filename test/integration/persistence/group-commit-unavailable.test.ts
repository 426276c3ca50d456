import { expect } from 'chai';
import { answerFor } from '../../../src/adapters/http/error-status.js';
import { createPino, PinoLogger } from '../../../src/adapters/logging/pino-logger.js';
import { Database } from '../../../src/adapters/persistence/database.js';
import { MikroOrmInboundRequestStore } from '../../../src/adapters/persistence/mikro-orm-inbound-request-store.js';
import type { InboundRequest } from '../../../src/ports/inbound-request-store.js';
import { randomUUID } from 'node:crypto';
import { migratedDataDir } from '../../support/data-dirs.js';
import { tempDir } from '../../support/gateway-process.js';
import { createScratchDatabase, describeWithPostgres, type ScratchDatabase } from '../../support/postgres.js';
import { panicEmbeddedDatabase, type PostgresProxy, startPostgresProxy } from '../../support/postgres-outage.js';

const logger = new PinoLogger(createPino('silent'));

const request = (n: number): InboundRequest => ({
  id: randomUUID(),
  watchPath: '/hooks/deploy',
  receivedAt: new Date(),
  request: `{"n":${n}}`,
  triggers: ['deploy'],
  runs: [],
  replayOf: null,
});

/** The statements `database.run` was asked for (the group commits' inserts go through it). */
const countRuns = (database: Database): { readonly count: () => number } => {
  const run = database.run.bind(database);
  let count = 0;
  database.run = ((text: string, parameters: readonly unknown[]) => {
    count++;
    return run(text, parameters);
  }) as Database['run'];
  return { count: () => count };
};

/**
 * Records `tasks` requests at once (one insert carries them) on a database that cannot be used,
 * and checks that every caller is refused by that insert's one error, answered 503, with no
 * insert of its own afterwards.
 */
const expectOneRefusal = async (database: Database, requests = 50): Promise<void> => {
  const store = new MikroOrmInboundRequestStore(database);
  const runs = countRuns(database);
  const refusals = await Promise.all(
    Array.from({ length: requests }, (_, n) =>
      store.record(request(n)).then(
        () => expect.fail('the request was stored'),
        (error: Error) => error,
      ),
    ),
  );
  for (const error of refusals) expect(answerFor(error).status, String(error)).to.equal(503);
  expect(new Set(refusals).size, 'requests refused by one error (the insert that carried them)').to.equal(1);
  expect(runs.count(), 'inserts tried: one, not one more per request').to.equal(1);
};

describeWithPostgres("The ORM's group commits on a PostgreSQL server that cannot be reached", function () {
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

  it('refuse every request of one insert with its error (503), without an insert per request', async () => {
    scratch = await createScratchDatabase();
    proxy = await startPostgresProxy(scratch.url);
    database = await Database.open({ databaseUrl: proxy.url, dataDir: await tempDir('group-commit-unavailable-pg'), logger });
    await database.migrate();
    expect(await new MikroOrmInboundRequestStore(database).record(request(0))).to.equal(true);
    // Gone: the pool's connections cut, every new one ended at once.
    proxy.refusing = true;
    proxy.cut();
    await expectOneRefusal(database);
  });
});

describe("The ORM's group commits on an embedded database whose thread failed", function () {
  this.timeout(120_000);
  let database: Database | undefined;

  afterEach(async () => {
    await database?.close().catch(() => undefined);
    database = undefined;
  });

  it('refuse every request of one insert with its error (503), without an insert per request', async () => {
    const dataDir = await migratedDataDir('group-commit-unavailable-pglite');
    database = await Database.open({ databaseUrl: undefined, dataDir, logger, onEngineFailure: () => undefined });
    expect(await new MikroOrmInboundRequestStore(database).record(request(0))).to.equal(true);
    await panicEmbeddedDatabase(database, dataDir);
    await expectOneRefusal(database);
  });
});
