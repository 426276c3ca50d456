import type { Context, Middleware } from 'koa';
import bodyParser from 'koa-bodyparser';
import { DomainError } from '../../../domain/errors/domain-error.js';
import { bodyFailure } from '../error-status.js';
import { acceptJsonValue } from './accept-json-value.js';
import { hasBody, keepMalformedBody, prepareBodyStream } from './body-stream.js';

const parsed = (): Promise<void> => Promise.resolve();

/**
 * Parses a JSON request body with koa-bodyparser into `ctx.request.body`; `ctx.request.rawBody`
 * keeps its text (decoded as UTF-8 after any content-encoding) for signature checks. A body of
 * another type is a 415; malformed JSON, JSON that sets `__proto__` or nests deeper than
 * MAX_JSON_DEPTH a 400; a body over `limit` bytes a 413 — counted after decompression (gzip,
 * deflate, br), so a small compressed body cannot inflate past it. Any JSON value is accepted
 * at the top level, as before (co-body's strict mode would take only objects and arrays).
 * A request without a body gets `undefined`. Only routes that take a body use it.
 * `verifiedLater`: the route checks a signature over the raw body first (keepMalformedBody).
 */
export const jsonBody = (limit: number, { verifiedLater = false } = {}): Middleware => {
  const parse = bodyParser({ enableTypes: ['json'], jsonLimit: String(limit), strict: false, detectJSON: () => true });
  return async (ctx: Context, next) => {
    const headers = ctx.req.headers;
    if (!hasBody(headers)) {
      ctx.request.body = undefined;
      return next();
    }
    // The usual header is compared as it is; any other is parsed (parameters, +json, case).
    if (headers['content-type'] !== 'application/json' && !ctx.request.is('application/json', '+json'))
      throw new DomainError('unsupported_media_type', 'Content-Type must be application/json');
    prepareBodyStream(ctx.req);
    try {
      await parse(ctx, parsed);
      ctx.request.body = ctx.request.rawBody === '' ? undefined : acceptJsonValue(ctx.request.body);
    } catch (error) {
      const problem = bodyFailure(error, 'JSON');
      if (!(verifiedLater && keepMalformedBody(ctx, error, problem))) throw problem;
    }
    return next();
  };
};
