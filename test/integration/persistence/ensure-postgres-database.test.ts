import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import pg from 'pg';
import { createPino, PinoLogger } from '../../../src/adapters/logging/pino-logger.js';
import { DatabaseOpenError } from '../../../src/adapters/persistence/database-open-error.js';
import { ensurePostgresDatabase } from '../../../src/adapters/persistence/ensure-postgres-database.js';
import { describeWithPostgres } from '../../support/postgres.js';

const logger = new PinoLogger(createPino('silent'));
const SERVER_URL = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const withServer = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
  const client = new pg.Client({ connectionString: SERVER_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
};
const exists = (name: string): Promise<boolean> =>
  withServer(async (client) => (await client.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1);
const urlFor = (name: string): string => {
  const url = new URL(SERVER_URL);
  url.pathname = `/${encodeURIComponent(name)}`;
  url.password = 'never-printed';
  return url.toString();
};
const failure = (promise: Promise<unknown>): Promise<DatabaseOpenError> =>
  promise.then(
    () => {
      throw new Error('expected a DatabaseOpenError');
    },
    (error: unknown) => {
      expect(error).to.be.instanceOf(DatabaseOpenError);
      return error as DatabaseOpenError;
    },
  );

describe('ensurePostgresDatabase: a server that does not answer', () => {
  it('names the server as host:port and the network error, never the URL or its password', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as { port: number }).port;
    await new Promise<void>((resolve) => holder.close(() => resolve()));
    const error = await failure(ensurePostgresDatabase(`postgres://agw:never-printed@127.0.0.1:${port}/gateway`, false, logger));
    expect(error.message).to.equal(`cannot connect to 127.0.0.1:${port} (ECONNREFUSED)`);
    expect(error.source).to.equal('postgresql');
    expect(error.missingDatabase).to.equal(undefined);
  });

  it('names a TLS file the URL points to that cannot be read, never the URL or its password', async () => {
    const error = await failure(ensurePostgresDatabase('postgres://postgres:S3CRETPW@127.0.0.1:5432/db?sslrootcert=/nonexistent-agw/ca.pem', false, logger));
    expect(error.message).to.equal('cannot read sslrootcert /nonexistent-agw/ca.pem (ENOENT)');
    expect(error.source).to.equal('postgresql');
    expect(error.message).not.to.include('S3CRETPW');
  });
});

describeWithPostgres('ensurePostgresDatabase on PostgreSQL', function () {
  this.timeout(30_000);
  const created: string[] = [];
  after(async () => {
    await withServer(async (client) => {
      for (const name of created) await client.query(`drop database if exists ${client.escapeIdentifier(name)} with (force)`);
    });
  });

  it('accepts a database that exists', async () => {
    await ensurePostgresDatabase(SERVER_URL, false, logger);
  });

  it('refuses a database that does not exist, naming it and the server, and creates nothing', async () => {
    const name = `agw_absent_${randomBytes(5).toString('hex')}`;
    const error = await failure(ensurePostgresDatabase(urlFor(name), false, logger));
    const server = new URL(SERVER_URL);
    expect(error.message).to.equal(`database "${name}" does not exist on ${server.hostname}:${server.port || 5432}`);
    expect(error.missingDatabase).to.equal(name);
    expect(error.message).to.not.contain('never-printed');
    expect(await exists(name)).to.equal(false);
  });

  it('with create, creates it under exactly its name, quotes and SQL included, and nothing else', async () => {
    // No ';' in it: pg reads the URL's path with decodeURI, which keeps %3B as it is.
    const name = `agw_"x" or "" drop table -- ${randomBytes(3).toString('hex')}`;
    created.push(name);
    await ensurePostgresDatabase(urlFor(name), true, logger);
    expect(await exists(name)).to.equal(true);
    expect(await exists(new URL(SERVER_URL).pathname.slice(1))).to.equal(true);
    // A second start finds it.
    await ensurePostgresDatabase(urlFor(name), true, logger);
  });
});
