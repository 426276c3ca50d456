import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';
import bodyParser from 'koa-bodyparser';
import { bodyFailure } from '../error-status.js';

/*
 * How the body middlewares (jsonBody, formBody, signedBody) read a request body: its bytes, through
 * koa-bodyparser, with the request stream readied first.
 */

/** Whether the request announces a body (an empty Content-Length is none). */
export const hasBody = (headers: IncomingMessage['headers']): boolean =>
  headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');

/**
 * Content codings are case-insensitive and `x-gzip` is `gzip` (RFC 9110 8.4.1); the
 * decompressor behind koa-bodyparser (inflation) knows only the lower-case names.
 */
const normalizeContentEncoding = (headers: IncomingMessage['headers']): void => {
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
const forwardAbortToDecompressor = (req: IncomingMessage): void => {
  if ((req.headers['content-encoding'] ?? 'identity') === 'identity') return;
  const pipe = req.pipe.bind(req);
  req.pipe = ((destination: NodeJS.WritableStream, options?: { end?: boolean }) => {
    req.once('close', () => {
      if (!req.complete) destination.emit('aborted');
    });
    return pipe(destination, options);
  }) as typeof req.pipe;
};

/** Readies the request for koa-bodyparser: content coding normalized, a cut-off compressed body noticed. */
export const prepareBodyStream = (req: IncomingMessage): void => {
  normalizeContentEncoding(req.headers);
  forwardAbortToDecompressor(req);
};

const parsed = (): Promise<void> => Promise.resolve();

/**
 * Reads a request body into a Buffer: its exact bytes after any content-encoding (gzip, deflate,
 * br), at most `limit` of them (413 beyond, counted after decompression, so a small compressed
 * body cannot inflate past it). koa-bodyparser reads it as `text` without a character encoding
 * (co-body then hands raw-body's Buffer through), so nothing is decoded yet: a signature is
 * checked over the bytes as sent, and bytes that are not UTF-8 can be refused instead of
 * being decoded with U+FFFD (body-text.ts). The caller has checked the content type.
 * @throws DomainError 413, 415 (unknown content-encoding), 400 (corrupt, cut off, wrong length).
 */
export const bodyBytesReader = (limit: number): ((ctx: Context) => Promise<Buffer>) => {
  const read = bodyParser({
    enableTypes: ['text'],
    textLimit: String(limit),
    // Any type: the middleware decided already which it takes.
    extendTypes: { text: ['*/*'] },
    // null, not undefined: co-body's default would decode as UTF-8.
    ...({ encoding: null } as object),
  });
  return async (ctx) => {
    prepareBodyStream(ctx.req);
    try {
      await read(ctx, parsed);
    } catch (error) {
      throw bodyFailure(error);
    }
    const bytes: unknown = ctx.request.body;
    ctx.request.body = undefined;
    // koa-bodyparser also put them in `rawBody`, which its types declare a string: kept in
    // `ctx.state.rawBody` instead (rawBodyOf), where they are typed as what they are.
    (ctx.request as { rawBody?: unknown }).rawBody = undefined;
    if (!Buffer.isBuffer(bytes)) throw new Error('koa-bodyparser did not read the body as bytes');
    ctx.state.rawBody = bytes;
    return bytes;
  };
};

/** The bytes of the request's body as received (after any content-encoding), once a body middleware read them. */
export const rawBodyOf = (ctx: Context): Buffer => (ctx.state.rawBody as Buffer | undefined) ?? Buffer.alloc(0);
