import { isUtf8 } from 'node:buffer';
import type { Context, Middleware } from 'koa';
import { DomainError } from '../../../domain/errors/domain-error.js';
import { bodyBytesReader, hasBody } from './body-stream.js';
import { refuseForeignCharset, utf8Text } from './body-text.js';

/** A parsed form: each field's text, or its texts when it was sent more than once. */
export type Form = Readonly<Record<string, string | readonly string[] | undefined>>;

/** A field's text (its first when sent more than once, as URLSearchParams.get). */
export const formField = (form: Form, name: string): string | undefined => {
  const value = Object.hasOwn(form, name) ? form[name] : undefined;
  return typeof value === 'string' ? value : value?.[0];
};

const PERCENT = 0x25;
const hexValue = (byte: number): number =>
  byte >= 0x30 && byte <= 0x39 ? byte - 0x30 : (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x66 ? (byte | 0x20) - 0x57 : -1;

/** WHATWG percent-decoding: each `%XX` becomes its byte; a `%` not followed by two hex digits stays as it is. */
const percentDecodedBytes = (text: string): Buffer => {
  const input = Buffer.from(text, 'utf8');
  const output = Buffer.alloc(input.length);
  let length = 0;
  for (let i = 0; i < input.length; i++) {
    const high = input[i] === PERCENT && i + 2 < input.length ? hexValue(input[i + 1]) : -1;
    const low = high === -1 ? -1 : hexValue(input[i + 2]);
    if (low === -1) output[length++] = input[i];
    else {
      output[length++] = high * 16 + low;
      i += 2;
    }
  }
  return output.subarray(0, length);
};

/**
 * A name or value of an `application/x-www-form-urlencoded` body (`+` is a space), or undefined
 * when its percent-encoded bytes are not UTF-8 (`%ff`, `%ED%A0%BD`): the WHATWG parser would
 * put U+FFFD there, and qs kept the text undecoded (a field literally named `%ff`).
 */
const decodeFormText = (encoded: string): string | undefined => {
  const text = encoded.includes('+') ? encoded.replaceAll('+', ' ') : encoded;
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    // A malformed escape (`100%`) stays as it is, as in a browser; only bytes that are not UTF-8 are refused.
    const bytes = percentDecodedBytes(text);
    return isUtf8(bytes) ? bytes.toString('utf8') : undefined;
  }
};

/**
 * The most fields a form may have: the admin UI's have a handful, Slack's one (`payload`). A
 * bound on the work a form costs besides the body limit: the admin's login form is parsed before
 * anyone is signed in (qs, used before, ignored the fields past 1 000 silently).
 */
export const MAX_FORM_FIELDS = 1000;

/** At most 100 characters of a field name, quoted, for an error message. */
const quoted = (name: string): string => JSON.stringify(name.length > 100 ? `${name.slice(0, 100)}…` : name);

/**
 * The fields of a form body, flat: names are taken as they are (no `a[b]` or `a.b` nesting), a
 * name sent more than once gets all its values in order, a part without a name is skipped.
 * Every name is kept, also `__proto__` or `toString` (qs dropped those).
 * @throws DomainError `invalid_input` naming the field whose name or value is not UTF-8 once
 * percent-decoded, or for more than MAX_FORM_FIELDS fields.
 */
export const parseForm = (text: string): Form => {
  const form: Record<string, string | string[]> = {};
  let fields = 0;
  for (const part of text.split('&')) {
    if (part === '') continue;
    if (++fields > MAX_FORM_FIELDS) throw new DomainError('invalid_input', `Invalid form body: more than ${MAX_FORM_FIELDS} fields`);
    const equals = part.indexOf('=');
    const rawName = equals === -1 ? part : part.slice(0, equals);
    const name = decodeFormText(rawName);
    if (name === undefined)
      throw new DomainError('invalid_input', `Invalid form body: the field name ${quoted(rawName)} is not valid UTF-8 once percent-decoded`);
    if (name === '') continue;
    const value = equals === -1 ? '' : decodeFormText(part.slice(equals + 1));
    if (value === undefined)
      throw new DomainError('invalid_input', `Invalid form body: the value of field ${quoted(name)} is not valid UTF-8 once percent-decoded`);
    const earlier = Object.hasOwn(form, name) ? form[name] : undefined;
    // A repeat is pushed, never copied: a body of one field sent 300 000 times (a 1 MB form)
    // must cost linear time, not quadratic.
    if (Array.isArray(earlier)) earlier.push(value);
    // Defined, not assigned: `__proto__` is a field like any other.
    else Object.defineProperty(form, name, { value: earlier === undefined ? value : [earlier, value], enumerable: true, writable: true, configurable: true });
  }
  return form;
};

/**
 * The checks of a form's headers, made before it is read: another content type, or a charset
 * other than UTF-8, is a 415.
 */
export const checkFormHeaders = (ctx: Context): void => {
  if (!ctx.request.is('application/x-www-form-urlencoded')) {
    throw new DomainError('unsupported_media_type', 'Content-Type must be application/x-www-form-urlencoded');
  }
  refuseForeignCharset(ctx, 'form');
};

/**
 * A form body's bytes, parsed (parseForm).
 * @throws DomainError `invalid_input`: bytes that are not UTF-8, a field whose percent-encoding
 * is not UTF-8, more than MAX_FORM_FIELDS fields.
 */
export const parseFormBytes = (bytes: Buffer): Form => parseForm(utf8Text(bytes, 'form'));

/**
 * Parses an `application/x-www-form-urlencoded` body into a flat Form (parseForm) in
 * `ctx.request.body`. Another content type, or a charset other than UTF-8, is a 415; a body over
 * `limit` bytes a 413, also after decompression; a corrupt or cut-off body, bytes that are not
 * UTF-8, or a field whose percent-encoding is not UTF-8 a 400. A request without a body gets an
 * empty form. A route whose body is signed reads it with signedBody instead.
 */
export const formBody = (limit: number): Middleware => {
  const read = bodyBytesReader(limit);
  return async (ctx: Context, next) => {
    if (!hasBody(ctx.req.headers)) {
      ctx.request.body = {};
      return next();
    }
    checkFormHeaders(ctx);
    ctx.request.body = parseFormBytes(await read(ctx));
    return next();
  };
};
