import type { Context, Middleware } from 'koa';
import { DomainError } from '../../../domain/errors/domain-error.js';
import { acceptJsonValue } from './accept-json-value.js';
import { bodyBytesReader, hasBody } from './body-stream.js';
import { refuseForeignCharset } from './body-text.js';
import { parseJson } from './parse-json.js';

/**
 * The checks of a JSON body's headers, made before it is read: a body of another type, or whose
 * Content-Type names a charset other than UTF-8 (body-text.ts), is a 415. Returns the
 * ASCII-compatible charset it was labelled with, for parseJson.
 */
export const checkJsonHeaders = (ctx: Context): string | undefined => {
  // The usual header is compared as it is; any other is parsed (parameters, +json, case).
  if (ctx.req.headers['content-type'] === 'application/json') return undefined;
  if (!ctx.request.is('application/json', '+json')) throw new DomainError('unsupported_media_type', 'Content-Type must be application/json');
  return refuseForeignCharset(ctx, 'JSON body');
};

/**
 * Parses a JSON request body into `ctx.request.body`; its bytes as received stay in
 * `ctx.state.rawBody` (rawBodyOf). A body of another type, or whose Content-Type names a charset
 * other than UTF-8, is a 415; bytes that are not UTF-8 (body-text.ts), malformed JSON, JSON that
 * sets `__proto__` or nests deeper than MAX_JSON_DEPTH a 400; a body over `limit` bytes a 413 —
 * counted after decompression (gzip, deflate, br), so a small compressed body cannot inflate
 * past it. Any JSON value is accepted at the top level, as before (co-body's strict mode would
 * take only objects and arrays). A request without a body gets `undefined`. Only routes that
 * take a body use it; a route whose body is signed reads it with signedBody instead.
 */
export const jsonBody = (limit: number): Middleware => {
  const read = bodyBytesReader(limit);
  return async (ctx: Context, next) => {
    if (!hasBody(ctx.req.headers)) {
      ctx.request.body = undefined;
      return next();
    }
    const asciiUnder = checkJsonHeaders(ctx);
    ctx.request.body = acceptJsonValue(parseJson(await read(ctx), asciiUnder));
    return next();
  };
};
