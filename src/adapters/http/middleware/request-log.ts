import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger as Pino } from 'pino';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,100}$/;

/** Told of every finished request; `route` is a declared route name or `unmatched` (bounded, for metrics). */
export type RequestObserver = (route: string, method: string, status: number, seconds: number) => void;

/**
 * Gives every request an id (the caller's `x-request-id` when it is sane, else a new
 * UUID), echoes it, and writes exactly one log line when the response is done. The line
 * carries no headers, query string or body: those may hold keys and message texts.
 * Runs on every request, so it reads and writes the node request and response directly.
 */
export const requestLog =
  (logger: Pino, observe?: RequestObserver): Middleware =>
  async (ctx, next) => {
    const given = ctx.req.headers['x-request-id'];
    const requestId = typeof given === 'string' && SAFE_REQUEST_ID.test(given) ? given : randomUUID();
    ctx.state.requestId = requestId;
    ctx.res.setHeader('x-request-id', requestId);
    const started = performance.now();
    try {
      await next();
    } finally {
      const durationMs = performance.now() - started;
      const route = (ctx.state.routeName as string | undefined) ?? 'unmatched';
      const error = ctx.state.error as unknown;
      if (error !== undefined || logger.isLevelEnabled('info')) {
        const fields = {
          reqId: requestId,
          method: ctx.method,
          path: ctx.path,
          route: ctx.state.routeName as string | undefined,
          status: ctx.status,
          durationMs: Math.round(durationMs * 1000) / 1000,
          keyId: ctx.state.apiKeyId as string | undefined,
          err: error,
        };
        if (error !== undefined) logger.error(fields, 'request failed');
        else logger.info(fields, 'request');
      }
      observe?.(route, ctx.req.method ?? 'GET', ctx.status, durationMs / 1000);
    }
  };
