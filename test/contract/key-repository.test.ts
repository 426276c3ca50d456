import pg from 'pg';
import { migratedPgliteDataDir } from '../support/databases.js';
import type { ApiKeyRecord } from '../../src/domain/auth/api-key-record.js';
import { PinoLogger, createPino } from '../../src/adapters/logging/pino-logger.js';
import { Database } from '../../src/adapters/persistence/database.js';
import { MikroOrmKeyRepository } from '../../src/adapters/persistence/mikro-orm-key-repository.js';
import { InMemoryKeyRepository } from '../fakes/in-memory-key-repository.js';
import { tempDir } from '../support/gateway-process.js';
import { createScratchDatabase, postgres } from '../support/postgres.js';
import { describeKeyRepositoryContract, type HeldLookup } from './key-repository.contract.js';
import { sql } from '../support/databases.js';

const logger = new PinoLogger(createPino('silent'));

const INSERT = 'insert into api_keys (id, name, key_hash, prefix, created_at, last_used_at) values ($1, $2, $3, $4, $5, $6)';
const insertValues = (r: ApiKeyRecord): unknown[] => [r.id, r.name, r.keyHash, r.prefix, r.createdAt, r.lastUsedAt];

/** Counts the statements about `api_keys` the database's ORM connection runs (the repository's lookups). */
const countQueries = (database: Database): (() => number) => {
  const connection = database.orm.em.getConnection() as unknown as { execute: (...args: unknown[]) => Promise<unknown> };
  const execute = connection.execute.bind(connection);
  let count = 0;
  connection.execute = (...args: unknown[]) => {
    if (/\bapi_keys\b/.test(String(args[0]))) count++;
    return execute(...args);
  };
  return () => count;
};

/**
 * KeyRepositoryHarness.holdLookup on `database`: wraps its ORM connection (the repository's
 * statements) and its notification listener, before the repository is started on it. Returns
 * the hold, and the release of whatever is held (for reset).
 */
const lookupHolding = (database: Database): { readonly hold: (digest: string) => HeldLookup; readonly releaseAll: () => void } => {
  let notices: Array<() => void> | undefined;
  const releaseNotices = (): void => {
    const held = notices ?? [];
    notices = undefined;
    for (const deliver of held) deliver();
  };
  const listen = database.listen.bind(database);
  database.listen = (channel, listener) =>
    listen(channel, {
      ...listener,
      onMessage: (payload) => (notices === undefined ? listener.onMessage(payload) : notices.push(() => listener.onMessage(payload))),
    });
  const connection = database.orm.em.getConnection() as unknown as { execute: (...args: unknown[]) => Promise<unknown> };
  const execute = connection.execute.bind(connection);
  let next: { readonly digest: string; readonly queried: () => void; readonly answered: Promise<void> } | undefined;
  let answerHeld = (): void => undefined;
  connection.execute = async (...args: unknown[]) => {
    const lookup = next;
    const text = String(args[0]);
    if (
      lookup === undefined ||
      !/^\s*select\b/i.test(text) ||
      !/\bapi_keys\b/.test(text) ||
      !`${text} ${JSON.stringify(args[1] ?? [])}`.includes(lookup.digest)
    )
      return execute(...args);
    next = undefined;
    const result = await execute(...args);
    lookup.queried();
    await lookup.answered;
    return result;
  };
  const releaseAll = (): void => {
    next = undefined;
    answerHeld();
    releaseNotices();
  };
  const hold = (digest: string): HeldLookup => {
    releaseAll();
    notices = [];
    let queried = (): void => undefined;
    const answered = new Promise<void>((resolve) => (answerHeld = resolve));
    next = { digest, queried: () => queried(), answered };
    return { queried: new Promise<void>((resolve) => (queried = resolve)), answer: () => answerHeld(), release: releaseAll };
  };
  return { hold, releaseAll };
};

/** A started repository on its own database handle (another replica). */
const startedOn = async (database: Database): Promise<MikroOrmKeyRepository> => {
  const repository = new MikroOrmKeyRepository(database);
  await repository.start();
  return repository;
};

describeKeyRepositoryContract(
  'in-memory fake',
  async () => {
    const harness = {
      repository: new InMemoryKeyRepository(),
      reset: async () => void (harness.repository = new InMemoryKeyRepository()),
      close: async () => undefined,
    };
    return harness;
  },
  { deletionElsewhere: false },
);

describeKeyRepositoryContract(
  'MikroORM on PGlite',
  async () => {
    const database = await Database.open({ databaseUrl: undefined, dataDir: await migratedPgliteDataDir('keys'), logger });
    await database.migrate();
    const queries = countQueries(database);
    const holding = lookupHolding(database);
    const repository = await startedOn(database);
    const replica = await startedOn(database);
    return {
      repository,
      replica,
      queries,
      holdLookup: holding.hold,
      // PGlite is single-process: "elsewhere" is raw SQL on the same database, outside the repository.
      deleteElsewhere: async (id) => void (await sql(database, 'delete from api_keys where id = ?', [id])),
      insertElsewhere: async (r) => void (await sql(database, INSERT.replace(/\$\d/g, '?'), insertValues(r))),
      // Row by row (not truncate): a truncate's notification would reset the caches at some later moment.
      reset: async () => {
        holding.releaseAll();
        await sql(database, 'delete from api_keys');
      },
      close: async () => {
        await repository.stop();
        await replica.stop();
        await database.close();
      },
    };
  },
  { deletionElsewhere: true },
);

if (postgres.available) {
  describeKeyRepositoryContract(
    'MikroORM on PostgreSQL',
    async () => {
      const scratch = await createScratchDatabase();
      const database = await Database.open({ databaseUrl: scratch.url, dataDir: await tempDir('keys'), logger });
      await database.migrate();
      const other = await Database.open({ databaseUrl: scratch.url, dataDir: await tempDir('keys'), logger });
      const queries = countQueries(database);
      const holding = lookupHolding(database);
      const repository = await startedOn(database);
      const replica = await startedOn(other);
      const elsewhere = async (sql: string, params: unknown[]): Promise<void> => {
        const client = new pg.Client({ connectionString: scratch.url });
        await client.connect();
        await client.query(sql, params);
        await client.end();
      };
      return {
        repository,
        replica,
        queries,
        holdLookup: holding.hold,
        deleteElsewhere: (id) => elsewhere('delete from api_keys where id = $1', [id]),
        insertElsewhere: (r) => elsewhere(INSERT, insertValues(r)),
        reset: async () => {
          holding.releaseAll();
          await sql(database, 'delete from api_keys');
        },
        close: async () => {
          await repository.stop();
          await replica.stop();
          await database.close();
          await other.close();
          await scratch.drop();
        },
      };
    },
    { deletionElsewhere: true },
  );
} else {
  describe.skip(`KeyRepository contract: MikroORM on PostgreSQL — pending: ${postgres.reason}`, () => {
    it('runs when PostgreSQL is reachable');
  });
}
