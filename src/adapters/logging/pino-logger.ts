import { pino, type Logger as Pino, type LevelWithSilent } from 'pino';
import type { Logger } from '../../ports/logger.js';

/** Header and field names whose values never reach a log line, whatever a caller passes. */
const REDACTED = [
  'key',
  'apiKey',
  'token',
  'secret',
  'password',
  'headers["x-api-key"]',
  'headers.authorization',
  'headers.cookie',
  'headers["x-hub-signature-256"]',
];

/**
 * Fields of a database error that carry a statement or the values it was run with. MikroORM
 * writes the values into the SQL text itself, and PGlite attaches that text to its error as
 * `query` (MikroORM's DriverException copies it): a failing insert of a bot token logged the
 * token. Other drivers use `sql`, `params`, `parameters`, `values`, `bindings`. Of PostgreSQL's
 * own fields, `detail` shows values of the row at fault (`Failing row contains (…)`), `where`
 * and `internalQuery` can quote the statement a function ran; `hint` is the server's general
 * advice and `code`, `constraint`, `table`, `column` name no value: they stay.
 */
const STATEMENT_FIELDS: ReadonlySet<string> = new Set([
  'query',
  'sql',
  'params',
  'parameters',
  'values',
  'bindings',
  'queryOptions',
  'internalQuery',
  'where',
  'detail',
]);

const HIDDEN = '[hidden]';

/**
 * The texts of STATEMENT_FIELDS in `value`, its causes and the errors and objects it holds.
 * MikroORM also writes `detail` into its error's message (`… violates check constraint "x"\n -
 * detail: Failing row contains (…)`), and so into its stack: those texts are hidden there too.
 */
const statementTexts = (value: unknown, found = new Set<string>(), seen = new Set<object>()): Set<string> => {
  if (value === null || typeof value !== 'object' || seen.has(value) || seen.size > 100) return found;
  seen.add(value);
  const record = value as Record<string, unknown>;
  for (const key of STATEMENT_FIELDS) {
    const text = record[key];
    if (typeof text === 'string' && text.trim().length >= 4) found.add(text);
  }
  // An error's `cause` is not enumerable.
  for (const held of [record.cause, ...Object.values(record)]) statementTexts(held, found, seen);
  return found;
};

const hide = (text: string, texts: readonly string[]): string => texts.reduce((hidden, secret) => hidden.split(secret).join(HIDDEN), text);

/**
 * A copy of `value` without STATEMENT_FIELDS in it or in the plain objects and arrays it holds,
 * and without `texts` in its strings.
 */
const withoutStatements = (value: unknown, texts: readonly string[], depth = 0): unknown => {
  if (typeof value === 'string') return texts.length === 0 ? value : hide(value, texts);
  if (value === null || typeof value !== 'object' || depth > 8) return value;
  if (Array.isArray(value)) return value.map((item) => withoutStatements(item, texts, depth + 1));
  // Plain objects (pino's serialized errors among them); a Date, a Buffer, a class's instance as they are.
  if ((value as object).constructor !== Object && Object.getPrototypeOf(value) !== null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !STATEMENT_FIELDS.has(key))
      .map(([key, field]) => [key, withoutStatements(field, texts, depth + 1)]),
  );
};

/**
 * An error's message followed by those of its causes, as pino's serializer writes it, but with
 * a cause's message left out when the message so far already holds it: errors that wrap another
 * quote it (`The custom model call failed: Cannot connect to API: …`, the SDK's error quoting its
 * own cause), and pino appended the same text again for each cause — three times in one line.
 * Undefined for a value that is no error.
 */
const messageWithNewCauses = (value: unknown): string | undefined => {
  if (!(value instanceof Error)) return undefined;
  let message = value.message;
  const seen = new Set<unknown>([value]);
  // Error-like causes too (an object with a string message, as pino takes them: a copied error, another realm's).
  const errorLike = (cause: unknown): cause is { message: string; cause?: unknown } =>
    typeof cause === 'object' && cause !== null && typeof (cause as { message?: unknown }).message === 'string';
  for (let cause: unknown = value.cause; errorLike(cause) && !seen.has(cause); cause = cause.cause) {
    seen.add(cause);
    if (cause.message !== '' && !message.includes(cause.message)) message = `${message}: ${cause.message}`;
  }
  return message;
};

/**
 * pino's error serializer (type, message and stack of the error and of its causes; its other
 * fields), minus the statements and values a database error carries. Only the fields of errors
 * are touched: a log line's own fields stay as the caller wrote them.
 */
const serializeError = (value: unknown): unknown => {
  const serialized: unknown = pino.stdSerializers.err(value as Error);
  if (serialized === value) return value;
  const message = messageWithNewCauses(value);
  if (message !== undefined) (serialized as { message: string }).message = message;
  // Longest first: a text that holds another is hidden whole.
  const texts = [...statementTexts(value)].sort((a, b) => b.length - a.length);
  return withoutStatements(serialized, texts);
};

/** `credentialHeaders`: more headers to redact (lower-case), the messaging channels'. */
export const createPino = (level: LevelWithSilent, destination?: pino.DestinationStream, credentialHeaders: readonly string[] = []): Pino =>
  pino(
    {
      level,
      base: { service: 'agent-gateway' },
      redact: { paths: [...REDACTED, ...credentialHeaders.map((name) => `headers[${JSON.stringify(name)}]`)], censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      serializers: { err: serializeError },
    },
    destination,
  );

/** The Logger port on pino; the raw pino instance stays available to the HTTP adapter. */
export class PinoLogger implements Logger {
  constructor(readonly pino: Pino) {}

  debug(fields: object, message: string): void {
    this.pino.debug(fields, message);
  }
  info(fields: object, message: string): void {
    this.pino.info(fields, message);
  }
  warn(fields: object, message: string): void {
    this.pino.warn(fields, message);
  }
  error(fields: object, message: string): void {
    this.pino.error(fields, message);
  }
  child(fields: object): Logger {
    return new PinoLogger(this.pino.child(fields));
  }
}
