import { rename, writeFile } from 'node:fs/promises';
import { createServer, type Server, Socket } from 'node:net';
import { join } from 'node:path';
import { expect } from 'chai';
import { answerFor } from '../../../src/adapters/http/error-status.js';
import { createPino, PinoLogger } from '../../../src/adapters/logging/pino-logger.js';
import { Database } from '../../../src/adapters/persistence/database.js';
import { MikroOrmInboundRequestStore } from '../../../src/adapters/persistence/mikro-orm-inbound-request-store.js';
import type { InboundRequest } from '../../../src/ports/inbound-request-store.js';
import { randomUUID } from 'node:crypto';
import { migratedDataDir } from '../../support/data-dirs.js';
import { sql } from '../../support/databases.js';
import { tempDir } from '../../support/gateway-process.js';
import { createScratchDatabase, describeWithPostgres, type ScratchDatabase } from '../../support/postgres.js';

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
  let proxy: { server: Server; sockets: Set<Socket> } | undefined;

  afterEach(async () => {
    for (const socket of proxy?.sockets ?? []) socket.destroy();
    await new Promise<void>((resolve) => (proxy ? proxy.server.close(() => resolve()) : resolve()));
    proxy = undefined;
    await database?.close().catch(() => undefined);
    database = undefined;
    await scratch?.drop();
    scratch = undefined;
  });

  it('refuse every request of one insert with its error (503), without an insert per request', async () => {
    scratch = await createScratchDatabase();
    const target = new URL(scratch.url);
    const sockets = new Set<Socket>();
    let refusing = false;
    const server = createServer((client) => {
      client.on('error', () => undefined);
      if (refusing) {
        client.destroy();
        return;
      }
      const upstream = new Socket();
      upstream.connect(Number(target.port || 5432), target.hostname);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy = { server, sockets };
    const via = new URL(scratch.url);
    via.hostname = '127.0.0.1';
    via.port = String((server.address() as { port: number }).port);
    database = await Database.open({ databaseUrl: via.toString(), dataDir: await tempDir('group-commit-unavailable-pg'), logger });
    await database.migrate();
    expect(await new MikroOrmInboundRequestStore(database).record(request(0))).to.equal(true);
    // Gone: the pool's connections cut, every new one ended at once.
    refusing = true;
    for (const socket of sockets) socket.destroy();
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
    await sql(database, 'create table fill (n int)');
    // The write-ahead log's directory replaced by a file: PostgreSQL stops with a PANIC (see database-unavailable.test.ts).
    const wal = join(dataDir, 'pglite', 'pg_wal');
    await rename(wal, `${wal}.away`);
    await writeFile(wal, 'not a directory');
    await sql(database, 'insert into fill select generate_series(1, 1000000)').then(
      () => expect.fail('the insert survived a missing write-ahead log'),
      () => undefined,
    );
    await expectOneRefusal(database);
  });
});
