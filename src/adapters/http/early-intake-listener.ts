import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger as Pino } from 'pino';
import { EarlyIntakeStopped, type EarlyIntake } from '../../application/triggers/early-intake.js';
import { snapshotRequest } from '../../domain/templates/request-snapshot.js';
import { answerFor } from './error-status.js';
import { acceptJsonValue } from './middleware/accept-json-value.js';
import { parseJson } from './middleware/parse-json.js';
import type { RequestObserver } from './middleware/request-log.js';
import { requestIdOf } from './middleware/request-id.js';

export interface EarlyIntakeListenerOptions {
  readonly intake: EarlyIntake;
  /** The route taken in: `POST <path>` (the plain webhook's), named `route` in the log and the metrics. */
  readonly route: { readonly name: string; readonly path: string };
  readonly bodyLimit: number;
  /** Headers that carry the channels' credentials, kept out of the stored request (as the app keeps them). */
  readonly credentialHeaders: readonly string[];
  readonly logger: Pino;
  readonly observe: RequestObserver;
  /** Most requests taken in at once (their bodies arriving or being stored); past it they are held. Default 1 000. */
  readonly maxInFlight?: number;
}

/**
 * A request the service's start answers itself instead of holding it (HttpServer.takeEarly):
 * returns false, having touched nothing, unless the request is one EarlyIntake takes in and its
 * form needs nothing of the app — `POST` on exactly the route's path (no query string), `Content-Type:
 * application/json`, no `Content-Encoding`, a `Content-Length` within the body limit, a key the
 * snapshot knows. Then it reads the body, parses it as the app does (parseJson, acceptJsonValue),
 * and answers as the app would: 200 `{ok: true, triggers}` once the request is in the journal, 4xx
 * `{error}` for a body the app refuses, with the request id, the request's log line and its count.
 * The journal always has room for a request admitted (EarlyIntake.admit holds it). A request it
 * cannot store (the journal failed), or that arrives when the app takes over, is answered 503 with
 * `Retry-After: 1`: nothing of it is stored, and the caller sends it again.
 */
export const earlyIntakeListener = (options: EarlyIntakeListenerOptions): ((req: IncomingMessage, res: ServerResponse) => boolean) => {
  const { intake, route, bodyLimit } = options;
  const maxInFlight = options.maxInFlight ?? 1_000;
  let inFlight = 0;
  return (req, res) => {
    if (req.method !== 'POST') return false;
    // Exactly the path, without a query string (the app's parsing of it is left to the app).
    if (req.url !== route.path) return false;
    const { headers } = req;
    if (headers['content-type'] !== 'application/json' || headers['content-encoding'] !== undefined || headers['transfer-encoding'] !== undefined) return false;
    const length = headers['content-length'];
    if (length === undefined || !/^[0-9]{1,12}$/.test(length) || Number(length) === 0 || Number(length) > bodyLimit) return false;
    // As many at once as the start holds (STARTING_HOLD): each holds its body in memory.
    if (inFlight >= maxInFlight) return false;
    const presented = headers['x-api-key'];
    // The headers' size as their JSON text: the stored request's headers are a part of them.
    const admitted = intake.admit(typeof presented === 'string' ? presented : undefined, Number(length), Buffer.byteLength(JSON.stringify(headers)));
    if (admitted === undefined) return false;
    inFlight++;
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      inFlight--;
      // The room held for a request not taken (a body refused, a caller gone); nothing once taken.
      intake.release(admitted);
    };
    res.once('close', end);
    const started = performance.now();
    const requestId = requestIdOf(req);
    res.setHeader('x-request-id', requestId);
    const answer = (status: number, body: unknown, error?: unknown): void => {
      if (!res.headersSent && !res.destroyed) {
        const text = JSON.stringify(body);
        res.writeHead(status, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(text),
          // As every /api answer (api-router.ts).
          'cache-control': 'no-store',
          ...(status === 503 ? { 'retry-after': '1' } : {}),
        });
        res.end(text);
      }
      const durationMs = performance.now() - started;
      if (error !== undefined || options.logger.isLevelEnabled('info')) {
        const fields = {
          reqId: requestId,
          method: 'POST',
          path: route.path,
          route: route.name,
          status,
          durationMs: Math.round(durationMs * 1000) / 1000,
          keyId: admitted.keyId,
          early: true,
          err: error,
        };
        if (error !== undefined) options.logger.error(fields, 'request failed');
        else options.logger.info(fields, 'request');
      }
      options.observe(route.name, 'POST', status, durationMs / 1000);
    };
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A caller that hangs up before its body is in is forgotten: nothing was stored.
    req.once('end', () => {
      let snapshot: ReturnType<typeof snapshotRequest>;
      try {
        const body = acceptJsonValue(parseJson(Buffer.concat(chunks)));
        snapshot = snapshotRequest(body, {}, headers, options.credentialHeaders);
      } catch (error) {
        const refused = answerFor(error);
        answer(refused.status, { error: refused.message }, refused.logged);
        return;
      }
      intake.take(admitted, snapshot).then(
        (triggers) => answer(200, { ok: true, triggers }),
        (error: unknown) =>
          error instanceof EarlyIntakeStopped ? answer(503, { error: 'The service is starting' }) : answer(503, { error: 'The service is starting' }, error),
      );
    });
    return true;
  };
};
