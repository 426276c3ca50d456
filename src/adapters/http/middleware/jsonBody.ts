import type { Middleware } from 'koa';
import bodyParser from 'koa-bodyparser';
import { DomainError } from '../../../domain/errors/DomainError.js';

const hasBody = (headers: Record<string, string | string[] | undefined>): boolean =>
  headers['transfer-encoding'] !== undefined ||
  (headers['content-length'] !== undefined && headers['content-length'] !== '0');

/**
 * Parses a JSON request body into `ctx.request.body`, keeping the exact text in
 * `ctx.request.rawBody` for signature checks. A body of another type is a 415, malformed
 * JSON a 400, a body over `limit` bytes a 413. A request without a body gets `undefined`.
 */
export const jsonBody = (limit: number): Middleware => {
  const parse = bodyParser({
    enableTypes: ['json'],
    jsonLimit: String(limit),
    strict: false,
    onerror: (error: Error & { status?: number; type?: string }) => {
      if (error.status === 413) {
        throw new DomainError('payload_too_large', `Request body is larger than ${limit} bytes`);
      }
      if (error.status === 415) throw new DomainError('unsupported_media_type', 'Unsupported body encoding');
      throw new DomainError('invalid_input', 'Invalid JSON body');
    },
  });
  return async (ctx, next) => {
    if (!hasBody(ctx.req.headers)) {
      ctx.request.body = undefined;
      return next();
    }
    if (!ctx.request.is('application/json', '+json')) {
      throw new DomainError('unsupported_media_type', 'Content-Type must be application/json');
    }
    const declared = Number(ctx.get('content-length'));
    if (declared > limit) throw new DomainError('payload_too_large', `Request body is larger than ${limit} bytes`);
    return parse(ctx, next);
  };
};
