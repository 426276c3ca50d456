import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * The PostgreSQL server the tests may use: TEST_DATABASE_URL, else the local default.
 * Each suite gets a database of its own (created here, dropped by `drop`), so suites
 * never see each other's rows. Where no server answers, `available` is false and
 * the PostgreSQL suites are reported as pending with `reason`.
 */
const SERVER_URL = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const probe = async (): Promise<string | undefined> => {
  const client = new pg.Client({ connectionString: SERVER_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return undefined;
  } catch (error) {
    return `no PostgreSQL reachable at ${new URL(SERVER_URL).host} (${(error as Error).message}); set TEST_DATABASE_URL`;
  } finally {
    await client.end().catch(() => undefined);
  }
};

const unavailableReason = await probe();

export const postgres = {
  available: unavailableReason === undefined,
  reason: unavailableReason ?? '',
};

export interface ScratchDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

/** Bounds for the admin connections here: a server that does not answer fails the setup with pg's message instead of the test's timeout. */
const ADMIN_TIMEOUTS = { connectionTimeoutMillis: 15_000, query_timeout: 45_000 };

/** Creates an empty database on the test server and returns its URL. */
export const createScratchDatabase = async (): Promise<ScratchDatabase> => {
  const name = `agw_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: SERVER_URL, ...ADMIN_TIMEOUTS });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: SERVER_URL, ...ADMIN_TIMEOUTS });
      await client.connect();
      try {
        await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
};

/** `describe` for suites that need PostgreSQL: pending, with the reason in the title, when there is none. */
export const describeWithPostgres = (title: string, body: (this: Mocha.Suite) => void): void => {
  if (postgres.available) describe(title, body);
  else describe.skip(`${title} — pending: ${postgres.reason}`, body);
};
