import { spawn } from 'node:child_process';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { SHORT_LIVED_SETTINGS } from '../../../src/adapters/persistence/open-engine.js';
import { openPgliteHere } from '../../../src/adapters/persistence/pglite/pglite-here.js';
import type { EmbeddedPglite, PgliteThread, PgliteTransaction } from '../../../src/adapters/persistence/pglite/pglite-thread.js';
import { emptyPgliteDir, openPglite } from '../../support/data-dirs.js';
import { within } from '../../support/time-limit.js';

/** What `promise` rejected with (the test fails if it resolved). */
const refusal = (promise: Promise<unknown>): Promise<Error> =>
  promise.then(
    () => expect.fail('the database answered'),
    (error: Error) => error,
  );

/** What the embedded database does wherever its statements run; `open` boots it on a data directory. */
const describeEmbeddedDatabase = (name: string, open: (dir: string) => Promise<EmbeddedPglite>): Mocha.Suite =>
  describe(name, function () {
    this.timeout(60_000);
    let dir: string;
    let db: EmbeddedPglite;

    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'pglite-thread-'));
      // A copy of a created cluster, booted by `open`: no initdb per suite.
      db = await open(await emptyPgliteDir('pglite-thread'));
      await db.exec(`create table item (id int primary key, name text not null unique, tags jsonb, body bytea, at timestamptz)`);
    });
    after(async () => {
      await db.close();
      await rm(dir, { recursive: true, force: true });
    });
    beforeEach(async () => void (await db.query('delete from item')));

    const names = async (): Promise<string[]> => (await db.query<{ name: string }>('select name from item order by id')).rows.map((row) => row.name);

    it('flushes what it commits: PostgreSQL runs with fsync on, by fsync (its runtime ignores fdatasync)', async () => {
      // PGlite's own start parameters turn fsync off (-F): a commit would survive the process but
      // not a power loss. Both ways start it with DURABLE_SETTINGS on a NODEFS that can flush.
      const settings = await db.query<{ name: string; setting: string }>(
        "select name, setting from pg_settings where name in ('fsync', 'wal_sync_method', 'synchronous_commit') order by name",
      );
      expect(settings.rows).to.deep.equal([
        { name: 'fsync', setting: 'on' },
        { name: 'synchronous_commit', setting: 'on' },
        { name: 'wal_sync_method', setting: 'fsync' },
      ]);
    });

    it('stores and returns values with their types: json, bytes, timestamps, big integers', async () => {
      const at = new Date('2026-11-23T10:00:00.000Z');
      await db.query('insert into item (id, name, tags, body, at) values ($1, $2, $3, $4, $5)', [1, 'one', { a: [1, 2] }, Buffer.from([1, 2, 255]), at]);
      const { rows } = await db.query<{ tags: unknown; body: Uint8Array; at: Date; big: number }>(
        'select tags, body, at, 9007199254740991::int8 as big from item where id = $1',
        [1],
      );
      expect(rows).to.have.length(1);
      expect(rows[0].tags).to.deep.equal({ a: [1, 2] });
      expect([...rows[0].body]).to.deep.equal([1, 2, 255]);
      expect(rows[0].at).to.be.instanceOf(Date);
      expect(rows[0].at.toISOString()).to.equal(at.toISOString());
      expect(Number(rows[0].big)).to.equal(9007199254740991);
    });

    it('answers rows as arrays when asked, and counts affected rows', async () => {
      const inserted = await db.query("insert into item (id, name) values (1, 'a'), (2, 'b')");
      expect(inserted.affectedRows).to.equal(2);
      const { rows } = await db.query('select id, name from item order by id', [], { rowMode: 'array' });
      expect(rows).to.deep.equal([
        [1, 'a'],
        [2, 'b'],
      ]);
    });

    it("keeps PostgreSQL's error fields (code, constraint) that callers map to their own errors", async () => {
      await db.query("insert into item (id, name) values (1, 'same')");
      const error = await db.query("insert into item (id, name) values (2, 'same')").then(
        () => expect.fail('a duplicate was stored'),
        (caught: unknown) => caught as Error & { code?: string; constraint?: string },
      );
      expect(error).to.be.instanceOf(Error);
      expect(error.message).to.match(/duplicate key/);
      expect(error.code).to.equal('23505');
      expect(error.constraint).to.equal('item_name_key');
      expect(await names()).to.deep.equal(['same']);
    });

    it('commits a transaction whose callback returns, and hands back its result', async () => {
      const result = await db.transaction(async (tx) => {
        await tx.query("insert into item (id, name) values (1, 'in tx')");
        return (await tx.query<{ n: number }>('select count(*)::int as n from item')).rows[0].n;
      });
      expect(result).to.equal(1);
      expect(await names()).to.deep.equal(['in tx']);
    });

    it('rolls a transaction back when its callback throws, or calls rollback()', async () => {
      const failure = await db
        .transaction(async (tx) => {
          await tx.query("insert into item (id, name) values (1, 'lost')");
          throw new Error('changed my mind');
        })
        .catch((error: Error) => error.message);
      expect(failure).to.equal('changed my mind');
      await db.transaction(async (tx) => {
        await tx.query("insert into item (id, name) values (2, 'lost too')");
        await tx.rollback();
        expect(tx.closed).to.equal(true);
        await tx.query('select 1').then(
          () => expect.fail('ran after rollback'),
          (error: Error) => expect(error.message).to.match(/closed/),
        );
      });
      expect(await names()).to.deep.equal([]);
    });

    it('runs a statement from outside only after an open transaction has ended', async () => {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let inserted!: (tx: PgliteTransaction) => void;
      const firstInserted = new Promise<PgliteTransaction>((resolve) => (inserted = resolve));
      const transaction = db.transaction(async (tx) => {
        await tx.query("insert into item (id, name) values (1, 'first')");
        inserted(tx);
        await held;
        await tx.query("insert into item (id, name) values (2, 'second')");
      });
      const tx = await firstInserted;
      // One connection: a statement let in mid-transaction would see the first row only.
      let outsideAnswered = false;
      const outside = db.query<{ n: number }>('select count(*)::int as n from item').then((result) => {
        outsideAnswered = true;
        return result;
      });
      // The transaction's own statement, sent after the outside one: statements are run and
      // answered in order, so had the outside one been let in, it would have answered first.
      await tx.query('select 1');
      expect(outsideAnswered, 'the outside statement ran inside the open transaction').to.equal(false);
      release();
      const [, seen] = await Promise.all([transaction, outside]);
      expect(seen.rows[0].n).to.equal(2);
    });

    it('delivers notifications to a listener until it unsubscribes', async () => {
      const received: string[] = [];
      const unsubscribe = await db.listen('thread_test', (payload) => received.push(payload));
      await db.query("select pg_notify('thread_test', 'hello')");
      await waitFor(() => received.length === 1);
      await unsubscribe();
      // A listener still subscribed is the barrier: once it has the notification, the other one would have it too.
      const barrier: string[] = [];
      const unsubscribeBarrier = await db.listen('thread_test', (payload) => barrier.push(payload));
      await db.query("select pg_notify('thread_test', 'after')");
      await waitFor(() => barrier.length === 1);
      await unsubscribeBarrier();
      expect(received).to.deep.equal(['hello']);
    });

    it('keeps the data across close (once, however often called) and reopen, and refuses work once closed', async () => {
      const path = await emptyPgliteDir('pglite-reopen');
      const first = await open(path);
      await first.exec("create table kept (v text); insert into kept values ('still here')");
      await Promise.all([first.close(), first.close()]);
      await first.close();
      expect(first.closed).to.equal(true);
      await first.query('select 1').then(
        () => expect.fail('ran on a closed database'),
        (error: Error) => expect(error.message).to.match(/closed/),
      );
      const second = await open(path);
      try {
        expect((await second.query('select v from kept')).rows).to.deep.equal([{ v: 'still here' }]);
      } finally {
        await second.close();
      }
    });

    it('refuses every statement after PostgreSQL stopped with a PANIC, naming the cause, instead of leaving them unanswered', async () => {
      const panicking = await emptyPgliteDir('pglite-panic');
      const other = await open(panicking);
      try {
        await other.exec('create table fill (n int)');
        // The write-ahead log's directory replaced by a file: the next segment cannot be made, and
        // PostgreSQL stops with a PANIC, as on a full disk (embedded-disk-full.test.ts, which needs root).
        await rename(join(panicking, 'pg_wal'), join(panicking, 'pg_wal.away'));
        await writeFile(join(panicking, 'pg_wal'), 'not a directory');
        // In a transaction: it ends without another statement (a rollback would wait for ever too).
        const panic = await within(30_000, 'a statement', refusal(other.transaction((tx) => tx.query('insert into fill select generate_series(1, 1000000)'))));
        expect((panic as { severity?: string }).severity === 'PANIC' || /^The embedded database stopped after a PANIC: /.test(panic.message), String(panic)).to
          .be.true;
        for (const next of [other.query('select 1'), other.exec('select 1'), other.transaction((tx) => tx.query('select 1'))])
          expect((await within(10_000, 'a statement', refusal(next))).message).to.match(/^The embedded database stopped after a PANIC: /);
        expect(other.closed).to.equal(true);
      } finally {
        await within(10_000, 'a statement', other.close());
      }
    });

    it('fails at once to open a data directory that is a file, naming the directory and the cause', async function () {
      // PGlite itself created a whole cluster in memory first (15–30 s), then said `ErrnoError (errno 54)`.
      this.timeout(5_000);
      const file = join(dir, 'not-a-directory');
      await writeFile(file, 'x');
      const error = await open(file).then(
        () => expect.fail('opened a file as a database'),
        (caught: Error) => caught,
      );
      expect(error.message).to.equal(`Cannot open the embedded database in ${file}: it is a file, not a directory`);
    });
  });

describeEmbeddedDatabase('PgliteThread (embedded database on its own thread, as the service runs it)', openPglite);
describeEmbeddedDatabase('openPgliteHere (embedded database on the calling thread, as a CLI command runs it)', (dir) =>
  openPgliteHere(dir, SHORT_LIVED_SETTINGS),
);

describe('PgliteThread: what a thread of its own adds', function () {
  this.timeout(60_000);
  let dir: string;
  let db: PgliteThread;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pglite-thread-'));
    db = await openPglite(await emptyPgliteDir('pglite-thread-only'));
  });
  after(async () => {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses query options that cannot cross threads, naming the option', async () => {
    const options = { parsers: { 23: (value: string) => value } } as never;
    const error = await db.query('select 1', [], options).then(
      () => expect.fail('accepted a parser function'),
      (caught: Error) => caught,
    );
    expect(error.message).to.match(/Query option "parsers" is not supported/);
  });

  it('sends a failed statement back without its text or values, which a log line would print (a bot token among them)', async () => {
    const secret = '123456:TOKEN-IN-CLEAR';
    await db.exec('create table setting (key text primary key, value text not null)');
    // As MikroORM sends statements: the values written into the SQL text. And as parameters.
    await db.query(`insert into setting (key, value) values ('messaging.bot_token', '${secret}')`);
    const inlined = await db.query(`insert into setting (key, value) values ('messaging.bot_token', '${secret}')`).then(
      () => expect.fail('a duplicate was stored'),
      (caught: Error) => caught,
    );
    const bound = await db.query('insert into setting (key, value) values ($1, $2)', ['messaging.bot_token', secret]).then(
      () => expect.fail('a duplicate was stored'),
      (caught: Error) => caught,
    );
    for (const error of [inlined, bound]) {
      expect(error.message).to.match(/duplicate key/);
      expect(error).to.include({ code: '23505', constraint: 'setting_pkey' });
      expect(error).to.not.have.any.keys('query', 'params', 'queryOptions');
      // Every field MikroORM's DriverException copies, as a log line's JSON would show them.
      expect(JSON.stringify(Object.fromEntries(Object.getOwnPropertyNames(error).map((key) => [key, (error as never)[key]])))).to.not.include(secret);
    }
  });

  it('refuses a parameter that cannot be copied to the thread, and goes on working', async () => {
    const error = await db.query('select $1::text as v', [() => 'x']).then(
      () => expect.fail('sent a function'),
      (caught: Error) => caught,
    );
    expect(error.message).to.match(/^Cannot send this statement to the embedded database: .*could not be cloned/);
    expect((await db.query('select $1::text as v', ['fine'])).rows).to.deep.equal([{ v: 'fine' }]);
  });

  it('does not keep a process alive once nothing is waiting on the database, also after a refused statement', async () => {
    const alive = await emptyPgliteDir('pglite-alive');
    const script = `
      import { PgliteThread } from ${JSON.stringify(fileURLToPath(new URL('../../../src/adapters/persistence/pglite/pglite-thread.ts', import.meta.url)))};
      const db = await PgliteThread.open(${JSON.stringify(alive)});
      await db.query('select $1::text', [() => 'not sendable']).catch(() => undefined);
      console.log((await db.query('select 41 + 1 as answer')).rows[0].answer);
    `;
    const file = join(dir, 'alive.mjs');
    await writeFile(file, script);
    const child = spawn(process.execPath, ['--import', 'tsx', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => {
        child.kill();
        resolve(null);
      }, 30_000);
      child.on('exit', (exitCode) => {
        clearTimeout(timer);
        resolve(exitCode);
      });
    });
    expect(code, output).to.equal(0);
    expect(output.trim()).to.equal('42');
  });
});

const waitFor = async (condition: () => boolean): Promise<void> => {
  // Up to 20 s: a bound for a stuck thread, not a measure of speed (the machine may be busy).
  for (let i = 0; i < 1000 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(condition()).to.equal(true);
};
