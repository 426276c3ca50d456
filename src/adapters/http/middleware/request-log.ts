import type { Middleware } from 'koa';
import type { Logger as Pino } from 'pino';
import { markAnsweredBeforeBody, type RejectionObserver } from '../rejected-request.js';
import { respondWithError } from './error-responder.js';
import { requestIdOf } from './request-id.js';

/** Told of every finished request; `route` is a declared route name or `unmatched` (bounded, for metrics). */
export type RequestObserver = (route: string, method: string, status: number, seconds: number) => void;

/**
 * The edge of every request. Gives it an id (the caller's `x-request-id` when it is sane, else
 * a new UUID) and echoes it; answers any failure below (`{error}` by the one error table,
 * respondWithError); writes exactly one log line when the response is done. The line carries no
 * headers, query string or body: those may hold keys and message texts. The route is the one
 * the layers below named (`ctx.state.routeName`) or the one @koa/router matched.
 * Runs on every request, so it reads and writes the node request and response directly, and it
 * is one layer, not two: each async layer a request passes costs it (bench/README.md).
 */
export const requestLog =
  (logger: Pino, observe?: RequestObserver): Middleware =>
  async (ctx, next) => {
    const requestId = requestIdOf(ctx.req);
    ctx.state.requestId = requestId;
    ctx.res.setHeader('x-request-id', requestId);
    const started = performance.now();
    try {
      await next();
    } catch (error) {
      respondWithError(ctx, error);
    } finally {
      // An answer given before the body was read: the request timeout after it writes nothing more.
      markAnsweredBeforeBody(ctx.req);
      const durationMs = performance.now() - started;
      const named = (ctx.state.routeName as string | undefined) ?? (ctx as { _matchedRouteName?: string })._matchedRouteName;
      const route = named ?? 'unmatched';
      const error = ctx.state.error as unknown;
      if (error !== undefined || logger.isLevelEnabled('info')) {
        const fields = {
          reqId: requestId,
          method: ctx.method,
          path: ctx.path,
          route: named,
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

/**
 * The log line and count of a request the HTTP server answered without the app (rejected-request.ts:
 * malformed, headers too large, not received in time, no Host): at `info`, as the request log's
 * lines, with the id sent back, the status and Node's error code only — never the request's
 * bytes, which may hold keys. Its method is unknown (it may be what was malformed): it is counted
 * as route `unmatched`, method `UNKNOWN`, with no latency (0 s).
 */
export const rejectionLog =
  (logger: Pino, observe?: RequestObserver): RejectionObserver =>
  ({ requestId, status, code }) => {
    logger.info({ reqId: requestId, status, code }, 'request rejected');
    observe?.('unmatched', 'UNKNOWN', status, 0);
  };
