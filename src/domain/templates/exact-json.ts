/**
 * JSON numbers a JavaScript number cannot hold, kept as their text.
 *
 * JSON.parse turns every number into a double: an integer beyond 2^53 (a 64-bit id, as Twitter
 * and Discord send them) loses its last digits, and a number beyond the double range (`1e400`)
 * becomes Infinity, which JSON.stringify writes as `null`. A request body is stored, rendered into
 * commands, prompts and webhook forwards, and replayed: each of those would carry the altered
 * value. So such a number is kept as `JSON.rawJSON(source)` — its exact text, which JSON.stringify
 * writes back as it came — using the source text JSON.parse gives a reviver (Node ≥ 21; the
 * project needs 22.12). Every other value, ordinary numbers included, stays what JSON.parse makes.
 *
 * A kept number is a frozen object with a null prototype (`{rawJSON: '…'}`): code reading a body
 * must treat it as a value, never as an object to walk or change (isRawJson); String() on it
 * throws, JSON.stringify and rawJsonText give its text.
 */

/** ES2024's raw JSON functions and the reviver's source text; the project compiles against the ES2023 library. */
interface Es2024Json {
  rawJSON(text: string): object;
  isRawJSON(value: unknown): boolean;
  parse(text: string, reviver?: (this: unknown, key: string, value: unknown, context: { source?: string }) => unknown): unknown;
}
const json = JSON as unknown as Es2024Json;

/** A number kept as its text: what parseExactJson gives for a number a double cannot hold. */
export type RawJsonNumber = { readonly rawJSON: string };

/** Whether `value` is a number kept as its text (a `JSON.rawJSON` object). */
export const isRawJson = (value: unknown): value is RawJsonNumber => json.isRawJSON(value);

/** The exact text of a number kept as its text. */
export const rawJsonText = (value: RawJsonNumber): string => value.rawJSON;

/** Integer literals: `-`, digits, no fraction or exponent. */
const INTEGER = /^-?\d+$/;

/**
 * Reviver for JSON.parse (and @hapi/bourne's parse, which passes it on): keeps as raw JSON an
 * integer literal beyond Number.MAX_SAFE_INTEGER, and any number that parses to ±Infinity. A
 * fraction or exponent that rounds (`0.1`, `1e20`) is a double by its very writing and stays a number.
 */
export const keepExactNumbers = (_key: string, value: unknown, context?: { source?: string }): unknown => {
  if (typeof value !== 'number' || context?.source === undefined) return value;
  if (Number.isFinite(value) && (Number.isSafeInteger(value) || !INTEGER.test(context.source))) return value;
  return json.rawJSON(context.source);
};

/**
 * Whether JSON text may hold a number keepExactNumbers keeps: one with 16 digits in a row (the
 * shortest integer beyond 2^53 has 16) or an exponent of 3 digits after a digit (the shortest way
 * past 1.8e308 in fewer than 309 digits). Most bodies have neither, and are parsed without the
 * reviver, whose call per value costs more than the parse itself. A string holding such digits
 * only takes the slower path; the result is the same. A run of digits is tried from its first
 * digit only: a body of 15-digit numbers would otherwise be scanned again from each digit.
 */
export const mayHoldInexactNumbers = (text: string): boolean => /(?<!\d)\d{16}|\d[eE]\+?\d{3}/.test(text);

/** The reviver to parse `text` with: keepExactNumbers, or none when the text cannot need it. */
export const exactNumbersReviver = (text: string): typeof keepExactNumbers | undefined => (mayHoldInexactNumbers(text) ? keepExactNumbers : undefined);

/**
 * JSON.parse keeping numbers a double cannot hold as their text (keepExactNumbers). Every place
 * that parses back JSON text written from a request body — a stored request for a trigger run, a
 * delivery shown to operators — uses it, so it sees the digits that were sent.
 * @throws SyntaxError for text that is not JSON, as JSON.parse.
 */
export const parseExactJson = (text: string): unknown => json.parse(text, exactNumbersReviver(text));
