import type { IncomingMessage } from 'node:http';
import type { Context, Middleware } from 'koa';
import bodyParser from 'koa-bodyparser';
import { DomainError } from '../../../domain/errors/DomainError.js';
import { bodyFailure } from '../errorStatus.js';
import { acceptJsonValue } from './acceptJsonValue.js';

/** Whether the request announces a body (an empty Content-Length is none). */
export const hasBody = (headers: IncomingMessage['headers']): boolean =>
  headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');

/**
 * Content codings are case-insensitive and `x-gzip` is `gzip` (RFC 9110 8.4.1); the
 * decompressor behind koa-bodyparser (inflation) knows only the lower-case names.
 */
export const normalizeContentEncoding = (headers: IncomingMessage['headers']): void => {
  const given = headers['content-encoding'];
  if (given === undefined) return;
  const coding = given.trim().toLowerCase();
  headers['content-encoding'] = coding === 'x-gzip' ? 'gzip' : coding;
};

/**
 * For a compressed body, inflation pipes the request into a decompressor that raw-body reads;
 * a pipe does not pass on the client going away, so raw-body would wait for the rest forever
 * (no answer, no log line). This hands the decompressor the request's `aborted`, which
 * raw-body turns into its own "request aborted" failure (400). A no-op once the body is read.
 */
export const forwardAbortToDecompressor = (req: IncomingMessage): void => {
  if ((req.headers['content-encoding'] ?? 'identity') === 'identity') return;
  const pipe = req.pipe.bind(req);
  req.pipe = ((destination: NodeJS.WritableStream, options?: { end?: boolean }) => {
    req.once('close', () => {
      if (!req.complete) destination.emit('aborted');
    });
    return pipe(destination, options);
  }) as typeof req.pipe;
};

const parsed = (): Promise<void> => Promise.resolve();

/**
 * Parses a JSON request body with koa-bodyparser into `ctx.request.body`; `ctx.request.rawBody`
 * keeps its text (decoded as UTF-8 after any content-encoding) for signature checks. A body of
 * another type is a 415; malformed JSON, JSON that sets `__proto__` or nests deeper than
 * MAX_JSON_DEPTH a 400; a body over `limit` bytes a 413 — counted after decompression (gzip,
 * deflate, br), so a small compressed body cannot inflate past it. Any JSON value is accepted
 * at the top level, as before (co-body's strict mode would take only objects and arrays).
 * A request without a body gets `undefined`. Only routes that take a body use it.
 */
export const jsonBody = (limit: number): Middleware => {
  const parse = bodyParser({ enableTypes: ['json'], jsonLimit: String(limit), strict: false, detectJSON: () => true });
  return async (ctx: Context, next) => {
    const headers = ctx.req.headers;
    if (!hasBody(headers)) {
      ctx.request.body = undefined;
      return next();
    }
    if (!ctx.request.is('application/json', '+json')) throw new DomainError('unsupported_media_type', 'Content-Type must be application/json');
    normalizeContentEncoding(headers);
    forwardAbortToDecompressor(ctx.req);
    try {
      await parse(ctx, parsed);
    } catch (error) {
      throw bodyFailure(error, 'JSON');
    }
    ctx.request.body = ctx.request.rawBody === '' ? undefined : acceptJsonValue(ctx.request.body);
    return next();
  };
};
