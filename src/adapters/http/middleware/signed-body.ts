import type { Context, Middleware } from 'koa';
import { acceptJsonValue } from './accept-json-value.js';
import { bodyBytesReader, hasBody } from './body-stream.js';
import { DomainError } from '../../../domain/errors/domain-error.js';
import { shownInput } from '../../../domain/errors/shown-input.js';
import { checkFormHeaders, parseFormBytes, type Form } from './form-body.js';
import { checkJsonHeaders } from './json-body.js';
import { parseJson } from './parse-json.js';

/**
 * Parses the body read by signedBody, once: its value, or the DomainError thrown — `invalid_input`
 * (400) for a body that cannot be taken, `unsupported_media_type` (415) for one that is not plain
 * ASCII under a single-byte charset label (body-text.ts).
 */
export type BodyParser = () => unknown;

/**
 * The JSON a form carries in its field `field` (GitHub's form content type: `payload=<JSON>`),
 * parsed as a JSON body is.
 * @throws DomainError `invalid_input`: the field missing or sent twice, its text not JSON (the
 *   rules of any JSON body: parseJson, acceptJsonValue).
 */
const jsonInFormField = (form: Form, field: string): unknown => {
  const text = Object.hasOwn(form, field) ? form[field] : undefined;
  if (text === undefined) throw new DomainError('invalid_input', `Invalid form body: no field "${field}" holding the JSON payload`);
  if (typeof text !== 'string') throw new DomainError('invalid_input', `Invalid form body: the field "${field}" is sent more than once`);
  return acceptJsonValue(parseJson(Buffer.from(text, 'utf8')));
};

/**
 * For a route whose body a signature covers (a code host's or a chat platform's webhook): reads
 * the body's bytes into `ctx.state.rawBody` (rawBodyOf) and leaves the parsing to
 * `ctx.state.parseBody` (parserOf), which the route's use case calls only once the signature over
 * those bytes is verified. A caller without the secret so never has its body decoded as UTF-8 or
 * parsed — the cost of up to `limit` bytes of JSON or a form of MAX_FORM_FIELDS fields is spent
 * on verified requests only — and gets its 401 whatever it sent. What the headers tell is still
 * checked first: a content type the route does not take, or a charset other than UTF-8 (except
 * the ASCII-compatible labels, which wait for the bytes), is a 415; a body over `limit` bytes
 * (also after decompression) a 413.
 * `forms`: the route also takes `application/x-www-form-urlencoded` (Slack's interactivity
 * posts `payload=<JSON>`, signed like its events), whose value is the form; else JSON only.
 * `jsonInForm`: the route also takes a form whose field of this name holds the JSON body (GitHub's
 * form content type, `payload=<JSON>`, signed as sent): its value is that JSON, as if it had been
 * sent as the body (a form without the field, or with it twice, is a 400 once verified).
 * `uncompressedOnly`: a body with a Content-Encoding (other than `identity`) is refused with a 415
 * before it is read — for a route whose caller is known only once its body is read (ApiRoute
 * `callerKnownAfterBody`): else anyone could send a kilobyte of gzip that inflates to `limit`
 * bytes, and stall, and the service would hold those bytes until the request timeout, a thousand
 * times what the caller sent, for as many connections as it opens.
 */
export const signedBody = (
  limit: number,
  { forms = false, jsonInForm, uncompressedOnly = false }: { readonly forms?: boolean; readonly jsonInForm?: string; readonly uncompressedOnly?: boolean } = {},
): Middleware => {
  const read = bodyBytesReader(limit);
  return async (ctx: Context, next) => {
    if (!hasBody(ctx.req.headers)) {
      ctx.state.rawBody = Buffer.alloc(0);
      setParser(ctx, () => undefined);
      return next();
    }
    if (uncompressedOnly) refuseContentEncoding(ctx);
    const takesForms = forms || jsonInForm !== undefined;
    if (takesForms && ctx.request.is('application/x-www-form-urlencoded')) {
      checkFormHeaders(ctx);
      const bytes = await read(ctx);
      setParser(ctx, jsonInForm === undefined ? () => parseFormBytes(bytes) : () => jsonInFormField(parseFormBytes(bytes), jsonInForm));
    } else {
      if (takesForms && ctx.req.headers['content-type'] !== 'application/json' && !ctx.request.is('application/json', '+json'))
        throw new DomainError('unsupported_media_type', 'Content-Type must be application/json or application/x-www-form-urlencoded');
      const asciiUnder = checkJsonHeaders(ctx);
      const bytes = await read(ctx);
      setParser(ctx, () => acceptJsonValue(parseJson(bytes, asciiUnder)));
    }
    return next();
  };
};

/** A Content-Encoding other than `identity` (any case, with white space), refused before the body is read (signedBody's `uncompressedOnly`). */
const refuseContentEncoding = (ctx: Context): void => {
  const coding = ctx.req.headers['content-encoding']?.trim().toLowerCase();
  if (coding === undefined || coding === '' || coding === 'identity') return;
  throw new DomainError(
    'unsupported_media_type',
    `This webhook takes no compressed body (Content-Encoding ${shownInput(coding)}): send it uncompressed, as the platform does`,
  );
};

/** `parse`, run at the first call only: later calls give the same value, or throw the same error. */
export const parseOnce = (parse: () => unknown): BodyParser => {
  let parsed: { value: unknown } | { error: unknown } | undefined;
  return () => {
    if (parsed === undefined) {
      try {
        parsed = { value: parse() };
      } catch (error) {
        parsed = { error };
      }
    }
    if ('error' in parsed) throw parsed.error;
    return parsed.value;
  };
};

/** The value is kept in `ctx.request.body` too, where the request's snapshot for triggers reads it. */
const setParser = (ctx: Context, parse: () => unknown): void => {
  ctx.request.body = undefined;
  ctx.state.parseBody = parseOnce(() => {
    const value = parse();
    ctx.request.body = value;
    return value;
  }) satisfies BodyParser;
};

/** The parser signedBody left for the request (for a route without one: a body of nothing). */
export const parserOf = (ctx: Context): BodyParser => (ctx.state.parseBody as BodyParser | undefined) ?? (() => undefined);
