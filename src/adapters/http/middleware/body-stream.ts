import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';
import type { DomainError } from '../../../domain/errors/domain-error.js';

/*
 * What the body middlewares (jsonBody, formBody) do to the request stream before
 * koa-bodyparser reads it.
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

/**
 * For a route that verifies a signature over the raw body before anything else: a body that
 * does not parse (`problem` a 400) is kept, raw, for the verification, and `problem` waits in
 * `ctx.state.malformedBody` until the request is verified — an unsigned caller gets its 401
 * whatever it sent. Returns false when the raw body is not at hand (nothing is kept then).
 */
export const keepMalformedBody = (ctx: Context, error: unknown, problem: DomainError): boolean => {
  const raw = typeof error === 'object' && error !== null ? (error as { body?: unknown }).body : undefined;
  const text = typeof raw === 'string' ? raw : ctx.request.rawBody;
  if (problem.code !== 'invalid_input' || typeof text !== 'string') return false;
  ctx.request.rawBody = text;
  ctx.request.body = undefined;
  ctx.state.malformedBody = problem;
  return true;
};
