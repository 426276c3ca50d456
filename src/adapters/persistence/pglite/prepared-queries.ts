/**
 * Runs a statement with parameters on the embedded database as PGlite's `query` does, with the
 * same locks, results and errors, in one round trip into PostgreSQL instead of six, and without
 * parsing and planning again a statement it has run before.
 *
 * PGlite's `query` sends Parse, Describe, Bind, Describe, Execute and Sync each in a call of its
 * own into the WebAssembly, each a turn of PostgreSQL's main loop and of PGlite's message handling;
 * an insert of one row took ~330–570 µs of the database's thread that way, ~95–130 µs with the same
 * messages in one call, and ~45–95 µs with the statement prepared once (bench/README.md,
 * "Measurements behind the code"). Here a statement is prepared under a name of its own the first
 * time its text is run (Parse and Describe, in one call: the parameters' types decide how each
 * value is written, with PGlite's own serializers), and then each run is Bind, Describe, Execute
 * and Sync in one call. Parameters are bound, never written into the text, as before.
 *
 * At most PREPARED_LIMIT statements are kept, the least recently run closed first (with the next
 * call). A prepared statement keeps the parameters' types and the columns PostgreSQL found when it
 * was prepared, and a migration can make either wrong: a result's columns changed fail with 0A000,
 * but a column whose type changed fails otherwise (text → jsonb: 42804, "expression is of type
 * text"; int → text: 22P02 for the value), with an error PGlite's query, which prepares each time,
 * would not give. So a statement prepared before this call that fails is forgotten (prepared again
 * at its next run) and, outside a transaction block, run once more, prepared afresh: its failed run
 * changed nothing (bar a sequence's value), and the second run answers what PGlite's query
 * answers, the same error for a statement that is wrong. Inside a transaction block the error
 * stands: the transaction has failed by then.
 *
 * Runs on the database's own thread, whose file is loaded with its types stripped only: no
 * parameter properties, no enums.
 */
import { type PGlite, parse, protocol, type QueryOptions, type Results } from '@electric-sql/pglite';

/**
 * How many prepared statements are kept: the service's busy paths run a few dozen distinct
 * texts, and a complex statement's plan takes ~0.1 MB of the database's memory (100 of them
 * ~14 MB, measured by the review of this file).
 */
export const PREPARED_LIMIT = 50;

/**
 * A statement that may change what prepared statements were prepared against (a table's columns
 * or types): every prepared statement is let go after one runs. A statement's text that only
 * looks like one (a word in a string) lets them go too, which costs only their next Parse.
 */
const CHANGES_SCHEMA = /\b(?:alter|create|drop|truncate|rename|comment\s+on)\b/i;

interface Prepared {
  readonly name: string;
  /** The parameters' types, as PostgreSQL described them. */
  readonly types: readonly number[];
}

/** An error PostgreSQL answered (PGlite's DatabaseError carries its SQLSTATE as `code`). */
/**
 * An error PostgreSQL answered for the statement alone (PGlite's DatabaseError carries its
 * SQLSTATE as `code` and its severity): after a FATAL or a PANIC PostgreSQL is gone, and a
 * statement sent to it again would never be answered (panicFailure, on the main thread, then
 * refuses every later one).
 */
const isStatementError = (error: unknown): boolean => {
  const { code, severity } = (error ?? {}) as { code?: unknown; severity?: unknown };
  return typeof code === 'string' && severity === 'ERROR';
};

const joined = (parts: readonly Uint8Array[]): Uint8Array => {
  if (parts.length === 1) return parts[0] as Uint8Array;
  const out = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
};

export class PreparedQueries {
  readonly #db: PGlite;
  /** By the statement's text (and its given parameter types); in the order they were last run. */
  readonly #statements = new Map<string, Prepared>();
  /** Statements to close with the next call (evicted, or found stale). */
  #closing: string[] = [];
  #next = 1;
  readonly #limit: number;

  constructor(db: PGlite, limit: number = PREPARED_LIMIT) {
    this.#db = db;
    this.#limit = limit;
  }

  /**
   * What `db.query(sql, params, options)` answers, outside a transaction (`inTransaction`
   * false: it waits for one that is open to end, as PGlite's own does) or as a statement of the
   * transaction PGlite's `transaction()` holds open (true).
   */
  async query<T = Record<string, unknown>>(
    sql: string,
    params: readonly unknown[] = [],
    options: QueryOptions = {},
    inTransaction = false,
  ): Promise<Results<T>> {
    await this.#db._checkReady();
    if (inTransaction) return this.#db._runExclusiveQuery(() => this.#run<T>(sql, params, options, true));
    return this.#db._runExclusiveTransaction(() => this.#db._runExclusiveQuery(() => this.#run<T>(sql, params, options, false)));
  }

  /**
   * Told of a statement run without PreparedQueries (PGlite's `exec`: migrations, pg-boss's
   * schema): one that may change the schema lets every prepared statement go (closed with the
   * next call), so that none runs with the parameter types or columns of before. A changed type
   * does not always fail: a value can be cast to the old type without an error.
   */
  ranElsewhere(sql: string): void {
    if (CHANGES_SCHEMA.test(sql)) for (const key of [...this.#statements.keys()]) this.#forget(key);
  }

  /** How many statements are prepared (for tests). */
  get size(): number {
    return this.#statements.size;
  }

  async #run<T>(sql: string, params: readonly unknown[], options: QueryOptions, inTransaction: boolean): Promise<Results<T>> {
    const key = options.paramTypes === undefined ? sql : `${sql}\u0000${options.paramTypes.join(',')}`;
    const preparedBefore = this.#statements.has(key);
    // Asked of PostgreSQL, not only `inTransaction`: pglite-here runs its transactions' statements
    // as statements outside one for PGlite, and a second run in a failed block would only answer
    // 25P02 in place of the error that failed it. Asked before the run: a COMMIT that fails ends
    // its block, and run again it would succeed (with a warning) and hide the failure.
    const inBlock = inTransaction || this.#db.isInTransaction();
    let messages: Awaited<ReturnType<PGlite['execProtocolStream']>>;
    try {
      messages = await this.#execute(key, sql, params, options);
    } catch (error) {
      if (!preparedBefore || !isStatementError(error)) throw error;
      this.#forget(key);
      if (inBlock) throw error;
      messages = await this.#execute(key, sql, params, options);
    }
    this.ranElsewhere(sql);
    // As PGlite's query: the file system hears of each statement that is not in a transaction.
    if (!inTransaction) await this.#db.syncToFs();
    return parse.parseResults(messages, this.#db.parsers, options)[0] as Results<T>;
  }

  async #execute(key: string, sql: string, params: readonly unknown[], options: QueryOptions): Promise<Awaited<ReturnType<PGlite['execProtocolStream']>>> {
    const { serialize } = protocol;
    let statement = this.#statements.get(key);
    if (statement === undefined) {
      const name = `agw_${this.#next++}`;
      const described = await this.#db.execProtocolStream(
        joined([...this.#closes(), serialize.parse({ name, text: sql, types: options.paramTypes }), serialize.describe({ type: 'S', name }), serialize.sync()]),
        { syncToFs: false },
      );
      statement = { name, types: parse.parseDescribeStatementResults(described) };
      this.#statements.set(key, statement);
      if (this.#statements.size > this.#limit) {
        const [oldest] = this.#statements.keys();
        if (oldest !== undefined) this.#forget(oldest);
      }
    } else {
      // Most recently run last.
      this.#statements.delete(key);
      this.#statements.set(key, statement);
    }
    const { types } = statement;
    const serializers = this.#db.serializers;
    const values = params.map((value, index) => {
      if (value === null || value === undefined) return null;
      const write = serializers[types[index] as number];
      return write ? write(value) : (value as { toString(): string }).toString();
    });
    // The statements to close are taken only now: a value its serializer refuses (an invalid Date)
    // throws above, and they stay for the next call instead of staying prepared for good.
    return this.#db.execProtocolStream(
      joined([
        ...this.#closes(),
        serialize.bind({ statement: statement.name, values }),
        serialize.describe({ type: 'P' }),
        serialize.execute({}),
        serialize.sync(),
      ]),
      { syncToFs: false },
    );
  }

  /** Close messages for the statements to close, which are then no longer pending. */
  #closes(): Uint8Array[] {
    const closes = this.#closing.map((name) => protocol.serialize.close({ type: 'S', name }));
    this.#closing = [];
    return closes;
  }

  #forget(key: string): void {
    const statement = this.#statements.get(key);
    if (statement === undefined) return;
    this.#statements.delete(key);
    this.#closing.push(statement.name);
  }
}
