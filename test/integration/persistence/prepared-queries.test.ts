import { expect } from 'chai';
import { PGlite } from '@electric-sql/pglite';
import { PreparedQueries } from '../../../src/adapters/persistence/pglite/prepared-queries.js';

/*
 * PreparedQueries on a real PGlite (in memory): each answer, error and lock as PGlite's own
 * `query`, with each statement prepared once.
 */

const prepared = async (db: PGlite): Promise<string[]> =>
  (await db.query<{ name: string }>('select name from pg_prepared_statements order by name')).rows.map((row) => row.name);

const errorOf = async (run: () => Promise<unknown>): Promise<Record<string, unknown>> => {
  try {
    await run();
  } catch (error) {
    const { code, message, constraint, detail, table } = error as Record<string, unknown>;
    return { code, message, constraint, detail, table };
  }
  throw new Error('expected the statement to fail');
};

describe('PreparedQueries (the embedded database’s statements with values)', function () {
  this.timeout(60_000);
  let db: PGlite;

  // One database for the suite (a start is seconds); each test gets the table and no prepared statement afresh.
  before(async () => {
    db = await PGlite.create();
  });

  beforeEach(async () => {
    await db.exec(`
      deallocate all;
      drop table if exists item;
      create table item (id serial primary key, name text not null unique, size int, doc jsonb, at timestamptz, ok boolean, tags text[], data bytea);
      insert into item (name, size) values ('first', 1);
    `);
  });

  after(async () => {
    await db?.close();
  });

  it('answers what PGlite’s query answers: rows, fields and counts, for values of every kind', async () => {
    const queries = new PreparedQueries(db);
    const insert = 'insert into item (name, size, doc, at, ok, tags, data) values ($1, $2, $3, $4, $5, $6, $7) returning *';
    const values = (name: string) => [
      name,
      42,
      { a: [1, 'two'], b: null },
      new Date('2026-12-01T10:00:00.123Z'),
      true,
      ['x', 'y,z', '"q"'],
      new Uint8Array([0, 255, 10]),
    ];
    const ours = await queries.query(insert, values('ours'));
    const theirs = await db.query(insert, values('theirs'));
    const { id: _a, name: oursName, ...oursRow } = ours.rows[0] as Record<string, unknown>;
    const { id: _b, name: theirsName, ...theirsRow } = theirs.rows[0] as Record<string, unknown>;
    expect([oursName, theirsName]).to.deep.equal(['ours', 'theirs']);
    expect(oursRow).to.deep.equal(theirsRow);
    expect(oursRow.at).to.be.instanceOf(Date);
    expect(ours.fields).to.deep.equal(theirs.fields);
    expect(ours.affectedRows).to.equal(theirs.affectedRows).and.to.equal(1);

    const update = 'update item set size = size + $1 where name <> $2';
    expect((await queries.query(update, [1, 'nobody'])).affectedRows).to.equal(3);
    expect(await queries.query('select name, size from item where size > $1 order by name', [40], { rowMode: 'array' })).to.deep.equal(
      await db.query('select name, size from item where size > $1 order by name', [40], { rowMode: 'array' }),
    );
    expect((await queries.query('select $1::text as v', [null])).rows).to.deep.equal([{ v: null }]);
    expect((await queries.query('select count(*)::int as n from item')).rows).to.deep.equal([{ n: 3 }]);
  });

  it('prepares a statement the first time its text runs, and runs it again without preparing it anew', async () => {
    const queries = new PreparedQueries(db);
    for (const name of ['a', 'b', 'c']) await queries.query('insert into item (name) values ($1)', [name]);
    await queries.query('select * from item where name = $1', ['a']);
    expect(queries.size).to.equal(2);
    expect(await prepared(db)).to.deep.equal(['agw_1', 'agw_2']);
    // The same text with the parameters' types given is another statement.
    await queries.query('select * from item where name = $1', ['a'], { paramTypes: [25] });
    expect(queries.size).to.equal(3);
  });

  it('keeps a value as a value: SQL in a parameter is stored as text, never run', async () => {
    const queries = new PreparedQueries(db);
    const hostile = "x'); drop table item; --";
    await queries.query('insert into item (name) values ($1)', [hostile]);
    expect((await db.query('select name from item order by id')).rows).to.deep.equal([{ name: 'first' }, { name: hostile }]);
  });

  it('fails as PGlite’s query fails (code, constraint, message), and the next statement runs', async () => {
    const queries = new PreparedQueries(db);
    const duplicate = 'insert into item (name) values ($1)';
    const ours = await errorOf(() => queries.query(duplicate, ['first']));
    const theirs = await errorOf(() => db.query(duplicate, ['first']));
    expect(ours).to.deep.equal(theirs);
    expect(ours).to.include({ code: '23505', constraint: 'item_name_key' });
    expect(await errorOf(() => queries.query('select nothing from item where name = $1', ['x']))).to.include({ code: '42703' });
    expect(await errorOf(() => queries.query('select * from item where id = $1', ['not a number']))).to.include({ code: '22P02' });
    expect((await queries.query('select name from item where id = $1', [1])).rows).to.deep.equal([{ name: 'first' }]);
  });

  it('keeps at most its limit of statements, closing the least recently run', async () => {
    const queries = new PreparedQueries(db, 2);
    await queries.query('select 1 as a where $1::int = 1', [1]);
    await queries.query('select 2 as b where $1::int = 1', [1]);
    await queries.query('select 1 as a where $1::int = 1', [1]);
    await queries.query('select 3 as c where $1::int = 1', [1]);
    expect(queries.size).to.equal(2);
    // The statement closed goes with the next call.
    expect((await queries.query('select 3 as c where $1::int = 1', [1])).rows).to.deep.equal([{ c: 3 }]);
    expect(await prepared(db)).to.deep.equal(['agw_1', 'agw_3']);
  });

  it('prepares again a statement whose columns changed (a migration), running it again outside a transaction', async () => {
    const queries = new PreparedQueries(db);
    const all = 'select * from item where id = $1';
    expect(Object.keys((await queries.query(all, [1])).rows[0] as object)).to.not.include('added');
    await db.exec('alter table item add column added int default 7');
    expect((await queries.query(all, [1])).rows[0]).to.include({ name: 'first', added: 7 });

    await db.exec('alter table item drop column added');
    const failure = await db.transaction(async (tx) => {
      const error = await errorOf(() => queries.query(all, [1], {}, true));
      await tx.rollback();
      return error;
    });
    expect(failure).to.include({ code: '0A000' });
    expect(Object.keys((await queries.query(all, [1])).rows[0] as object)).to.not.include('added');
  });

  it('runs a statement whose parameter’s column changed type (a migration) as PGlite’s query does', async () => {
    const queries = new PreparedQueries(db);
    const insert = 'insert into item (name, doc) values ($1, $2) returning doc';
    await queries.query(insert, ['jsonb first', { a: 0 }]);
    // Prepared with $2 as jsonb; the column becomes text: the old statement binds 'plain words' as jsonb (22P02).
    await db.exec('alter table item alter column doc type text using doc::text');
    expect((await queries.query(insert, ['text after', 'plain words'])).rows).to.deep.equal((await db.query(insert, ['theirs', 'plain words'])).rows);
    await db.exec('alter table item alter column doc type jsonb using to_jsonb(doc)');
    expect((await queries.query(insert, ['jsonb again', { a: 1 }])).rows).to.deep.equal([{ doc: { a: 1 } }]);
    // A statement that is wrong still fails as PGlite’s fails.
    expect(await errorOf(() => queries.query(insert, ['first', null]))).to.deep.equal(await errorOf(() => db.query(insert, ['first', null])));
  });

  it('leaves the error of a stale statement in a transaction block PGlite was not told of (BEGIN through exec)', async () => {
    const queries = new PreparedQueries(db);
    const all = 'select * from item where id = $1';
    await queries.query(all, [1]);
    await db.exec('alter table item add column added int');
    await db.exec('begin');
    try {
      // Not 25P02 (a second run in the failed block): the error that failed it.
      expect(await errorOf(() => queries.query(all, [1]))).to.include({ code: '0A000' });
    } finally {
      await db.exec('rollback');
    }
    expect((await queries.query(all, [1])).rows[0]).to.include({ name: 'first', added: null });
  });

  it('fails a COMMIT run through it that fails (a deferred constraint), also once its text is prepared', async () => {
    const queries = new PreparedQueries(db);
    await db.exec('drop table if exists part; create table part (n int unique deferrable initially deferred)');
    await db.exec('begin');
    await queries.query('commit');
    await db.exec('begin');
    await queries.query('insert into part (n) values ($1), ($1)', [1]);
    // Run again outside the block the failed COMMIT ended, it would succeed and hide the failure.
    expect(await errorOf(() => queries.query('commit'))).to.include({ code: '23505' });
    expect((await db.query('select count(*)::int as n from part')).rows).to.deep.equal([{ n: 0 }]);
  });

  it('closes the statements it let go also when a value cannot be written', async () => {
    const queries = new PreparedQueries(db, 1);
    const select = 'select 1 as a where $1::int = 1';
    await queries.query('select 2 as b where $1::int = 1', [1]);
    // agw_1 let go, to be closed with the next call: the one whose value cannot be written.
    await queries.query(select, [1]);
    const unwritable = {
      toString(): string {
        throw new Error('this value cannot be written');
      },
    };
    expect(await errorOf(() => queries.query(select, [unwritable]))).to.deep.equal(await errorOf(() => db.query(select, [unwritable])));
    await queries.query(select, [1]);
    expect(await prepared(db)).to.deep.equal(['agw_2']);
  });

  it('runs a statement of the open transaction in it, and one from outside after the transaction ended', async () => {
    const queries = new PreparedQueries(db);
    const order: string[] = [];
    let inside!: () => void;
    const insideDone = new Promise<void>((resolve) => (inside = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const transaction = db.transaction(async (tx) => {
      await queries.query('insert into item (name) values ($1)', ['in the transaction'], {}, true);
      inside();
      await released;
      order.push('transaction ends');
      await tx.rollback();
    });
    await insideDone;
    // Sent while the transaction is open: one session, so run now it would count the row the
    // transaction inserted (2); run after the rollback, 1.
    const outside = queries.query<{ n: number }>('select count(*)::int as n from item', []).then((result) => {
      order.push('outside runs');
      return result.rows;
    });
    // A statement of the transaction sent after it: it runs, and the one from outside has not.
    expect((await queries.query('select count(*)::int as n from item', [], {}, true)).rows).to.deep.equal([{ n: 2 }]);
    expect(order).to.deep.equal([]);
    release();
    await transaction;
    expect(await outside).to.deep.equal([{ n: 1 }]);
    expect(order).to.deep.equal(['transaction ends', 'outside runs']);
  });

  it('lets every prepared statement go after a statement that may change the schema, run through it or elsewhere', async () => {
    const queries = new PreparedQueries(db);
    const byName = 'select doc from item where name = $1';
    await queries.query(byName, ['first']);
    await queries.query('select 1 as one where $1::int = 1', [1]);
    expect(queries.size).to.equal(2);
    // Through PGlite's exec (a migration): jsonb → text would otherwise still cast the value to jsonb silently.
    await db.exec('alter table item alter column doc type text using doc::text; update item set doc = \'{ "b": 1,  "a": 2 }\'');
    queries.ranElsewhere('alter table item alter column doc type text using doc::text; update item set doc = \'{ "b": 1,  "a": 2 }\'');
    expect(queries.size).to.equal(0);
    // The text as stored, not as jsonb would normalise it.
    expect((await queries.query(byName, ['first'])).rows).to.deep.equal([{ doc: '{ "b": 1,  "a": 2 }' }]);
    // Through it: a statement that changes the schema lets the others go too.
    await queries.query('select 1 as one where $1::int = 1', [1]);
    await queries.query('create index item_size on item (size) where size > $1', [0]).catch(() => undefined);
    await queries.query('comment on table item is $$items$$', []);
    expect(queries.size).to.equal(0);
    // Statements that only read or write rows keep theirs.
    queries.ranElsewhere('CHECKPOINT');
    queries.ranElsewhere("insert into item (name) values ('created_on')");
    await queries.query(byName, ['first']);
    queries.ranElsewhere('CHECKPOINT');
    expect(queries.size).to.equal(1);
  });
});
