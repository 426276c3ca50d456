import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import { requestIdOf } from './middleware/request-id.js';

/** How a request that arrives while the service is starting is held until the service can answer it. */
export interface StartingHold {
  /** Longest wait for the start, in ms; a request still waiting then is answered 503. */
  readonly waitMs: number;
  /** Most requests held at once; a request beyond them is answered 503 at once. */
  readonly max: number;
}

/**
 * A start takes one to three seconds (the embedded database's boot, module loading): a request
 * arriving meanwhile waits for it, as it would wait in the listen backlog, instead of failing.
 * Ten seconds is the longest a code host waits for a webhook's answer (GitHub), so a request is
 * never run after its caller gave up on it for want of an answer; the cap bounds the memory held.
 */
export const STARTING_HOLD: StartingHold = { waitMs: 10_000, max: 1_000 };

/** 503 while the service starts or stops; with a request id, as every answer has (docs/api.md). */
const refuse = (req: IncomingMessage, res: ServerResponse, error: string): void => {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(503, { 'content-type': 'application/json; charset=utf-8', 'retry-after': '1', 'x-request-id': requestIdOf(req) });
  res.end(JSON.stringify({ error }));
};

interface Held {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly timer: NodeJS.Timeout;
}

/** A listening HTTP server that can shut down gracefully. */
export class HttpServer {
  #handler: RequestListener;
  readonly #held = new Set<Held>();

  private constructor(
    private readonly server: Server,
    private readonly hold: StartingHold,
  ) {
    this.#handler = (req, res) => this.#holdUntilServed(req, res);
  }

  /**
   * Binds `host:port` at once, before the rest of the service exists, so that a port in use
   * stops start-up before anything else is opened. Until `serve` is called, a request waits
   * for it (`hold`: at most `waitMs`, at most `max` requests at once; past either it is answered
   * 503 `{error: "The service is starting"}` with `Retry-After: 1`); a request whose caller
   * hangs up while waiting is dropped, never run. Rejects with Node's listen error (`code`
   * EADDRINUSE, EACCES, EADDRNOTAVAIL, ENOTFOUND …).
   */
  static async listen(port: number, host: string, hold: StartingHold = STARTING_HOLD): Promise<HttpServer> {
    const server = createServer();
    server.keepAliveTimeout = 65_000;
    const http = new HttpServer(server, hold);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => http.#handler(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return http;
  }

  /** From now on requests go to `app`, beginning with those that waited for it, in their order. */
  serve(app: Koa): void {
    const handler = app.callback();
    this.#handler = handler;
    const waiting = [...this.#held];
    this.#held.clear();
    for (const { req, res, timer } of waiting) {
      clearTimeout(timer);
      if (!res.destroyed) void handler(req, res);
    }
  }

  /** How many requests are waiting for the start. */
  get waiting(): number {
    return this.#held.size;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /**
   * Stops accepting connections, lets in-flight requests finish, closes idle keep-alive
   * connections at once and forces the rest closed after `timeoutMs`. Requests still waiting
   * for a start that did not complete are answered 503.
   */
  async close(timeoutMs: number): Promise<void> {
    for (const held of [...this.#held]) this.#release(held, 'The service stopped before it was ready');
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    const timer = setTimeout(() => this.server.closeAllConnections(), timeoutMs);
    timer.unref();
    await closed;
    clearTimeout(timer);
  }

  #holdUntilServed(req: IncomingMessage, res: ServerResponse): void {
    if (this.#held.size >= this.hold.max) {
      refuse(req, res, 'The service is starting');
      return;
    }
    const held: Held = { req, res, timer: setTimeout(() => this.#release(held, 'The service is starting'), this.hold.waitMs) };
    this.#held.add(held);
    // A caller that hangs up is forgotten: its request is never run.
    res.once('close', () => {
      if (this.#held.delete(held)) clearTimeout(held.timer);
    });
  }

  #release(held: Held, error: string): void {
    if (!this.#held.delete(held)) return;
    clearTimeout(held.timer);
    refuse(held.req, held.res, error);
  }
}
