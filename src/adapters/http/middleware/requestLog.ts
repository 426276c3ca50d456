import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger as Pino } from 'pino';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,100}$/;

/**
 * Gives every request an id (the caller's `x-request-id` when it is sane, else a new
 * UUID), echoes it, and writes exactly one log line when the response is done. The line
 * carries no headers, query string or body: those may hold keys and message texts.
 */
/** Told of every finished request; `route` is a declared route name or `unmatched` (bounded, for metrics). */
export type RequestObserver = (route: string, method: string, status: number, seconds: number) => void;

export const requestLog = (logger: Pino, observe?: RequestObserver): Middleware => async (ctx, next) => {
  const given = ctx.get('x-request-id');
  const requestId = SAFE_REQUEST_ID.test(given) ? given : randomUUID();
  ctx.state.requestId = requestId;
  ctx.set('x-request-id', requestId);
  const started = process.hrtime.bigint();
  try {
    await next();
  } finally {
    const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
    const fields = {
      reqId: requestId,
      method: ctx.method,
      path: ctx.path,
      route: ctx.state.routeName as string | undefined,
      status: ctx.status,
      durationMs: Math.round(durationMs * 1000) / 1000,
      keyId: ctx.state.apiKeyId as string | undefined,
      err: ctx.state.error as unknown,
    };
    if (ctx.state.error !== undefined) logger.error(fields, 'request failed');
    else logger.info(fields, 'request');
    observe?.(fields.route ?? 'unmatched', ctx.method, ctx.status, durationMs / 1000);
  }
};
