/**
 * Messages between the main thread and the thread that runs the embedded database
 * (see PgliteThread). Every request carries an `id` and gets exactly one reply with it.
 */

/** The query options that can cross a thread: functions (parsers, serializers, onNotice) cannot. */
export interface PortableQueryOptions {
  readonly rowMode?: 'array' | 'object';
  readonly paramTypes?: number[];
}

export type Request =
  | {
      readonly op: 'query';
      readonly id: number;
      readonly tx?: number;
      readonly sql: string;
      readonly params?: unknown[];
      readonly options?: PortableQueryOptions;
    }
  | { readonly op: 'exec'; readonly id: number; readonly tx?: number; readonly sql: string }
  /** Opens a transaction; the reply carries its number, which later requests name as `tx`. */
  | { readonly op: 'begin'; readonly id: number }
  /** Commits (`commit` true) or rolls back a transaction; the reply comes once it has ended. */
  | { readonly op: 'end'; readonly id: number; readonly tx: number; readonly commit: boolean }
  | { readonly op: 'rollback'; readonly id: number; readonly tx: number }
  /** Subscribes to a NOTIFY channel; notifications arrive as `Notification`s with the reply's number. */
  | { readonly op: 'listen'; readonly id: number; readonly channel: string }
  | { readonly op: 'unlisten'; readonly id: number; readonly subscription: number }
  | { readonly op: 'close'; readonly id: number };

/** A database error as plain data: message plus PostgreSQL's fields (`code`, `detail`, `constraint`, …). */
export interface PortableError {
  readonly message: string;
  readonly name: string;
  readonly fields: Record<string, string | number | boolean>;
}

export type Reply =
  | { readonly id: number; readonly ok: true; readonly result: unknown }
  | { readonly id: number; readonly ok: false; readonly error: PortableError };

export interface Notification {
  readonly subscription: number;
  readonly payload: string;
}

/** What the thread is started with. */
export interface ThreadData {
  readonly dataDir: string;
  /** PostgreSQL settings for this boot only (`-c name=value`); none: PGlite's defaults. */
  readonly settings?: Readonly<Record<string, string>>;
}

/** Sent once by the thread: the database is open, or why it could not be opened. */
export type Opened = { readonly opened: true } | { readonly opened: false; readonly error: PortableError };

/**
 * The fields of PGlite's error that carry a statement or its values, which do not cross: PGlite
 * attaches the statement as `query` (MikroORM writes the values into its text) and its
 * parameters as `params`, and PostgreSQL's `where` and `internalQuery` can quote the statement a
 * function ran. MikroORM copies every field of the error into its own, which a log line then
 * printed, a bot token with it. (node-postgres, on PostgreSQL, attaches no statement to its errors.)
 */
const STATEMENT_FIELDS: ReadonlySet<string> = new Set(['query', 'params', 'queryOptions', 'where', 'internalQuery']);

/** Also takes what is thrown but is no Error, such as the WebAssembly file system's `{name: 'ErrnoError', errno}`. */
export const toPortableError = (error: unknown): PortableError => {
  if (error === null || typeof error !== 'object') return { message: String(error), name: 'Error', fields: {} };
  const fields: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(error)) {
    if (STATEMENT_FIELDS.has(key)) continue;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') fields[key] = value;
  }
  if (error instanceof Error) return { message: error.message, name: error.name, fields };
  const name = typeof fields.name === 'string' ? fields.name : 'Error';
  const detail = Object.entries(fields)
    .filter(([key]) => key !== 'name')
    .map(([key, value]) => `${key} ${value}`)
    .join(', ');
  return { message: detail === '' ? name : `${name} (${detail})`, name, fields };
};

export const fromPortableError = (portable: PortableError): Error => Object.assign(new Error(portable.message), { name: portable.name }, portable.fields);
