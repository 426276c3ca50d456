import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type Koa from 'koa';
import { requestIdOf } from './middleware/request-id.js';
import {
  answerClientError,
  answerConnect,
  answerRejected,
  markAnsweredBeforeBody,
  missingHost,
  type RejectedRequest,
  type RejectionObserver,
  unsupportedTransferEncoding,
} from './rejected-request.js';

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

/**
 * How long a request may take to arrive. Node counts both from the request's first byte to its
 * last (the response's time is not counted: a slow handler is never cut), and a request over
 * either is answered 408 `{error}` and its connection closed.
 */
export interface RequestTimeouts {
  /** The request line and headers (Node's `headersTimeout`); capped at `requestMs`. */
  readonly headersMs: number;
  /** The whole request, body included (Node's `requestTimeout`; REQUEST_TIMEOUT_MS). */
  readonly requestMs: number;
}

/**
 * Node's defaults hold a connection whose body stopped coming for 300 s (and headers for 60 s);
 * an API caller's headers come in one packet and a body of BODY_LIMIT within seconds.
 */
export const REQUEST_TIMEOUTS: RequestTimeouts = { headersMs: 20_000, requestMs: 60_000 };

/** 503 while the service starts or stops; with a request id, as every answer has (docs/api.md). */
const refuse = (req: IncomingMessage, res: ServerResponse, error: string): void => {
  if (res.headersSent || res.destroyed) return;
  markAnsweredBeforeBody(req);
  res.writeHead(503, { 'content-type': 'application/json; charset=utf-8', 'retry-after': '1', 'x-request-id': requestIdOf(req) });
  res.end(JSON.stringify({ error }));
};

/** Sends `100 Continue` when the request's body is first read (raw-body, the early intake), if nothing was answered yet. */
const continueOnFirstRead = (req: IncomingMessage, res: ServerResponse): void => {
  const read = req._read;
  req._read = function (this: IncomingMessage, size: number) {
    req._read = read;
    if (!res.headersSent && !res.writableEnded) res.writeContinue();
    return read.call(this, size);
  };
};

/**
 * A server-side connection and the answer it is giving now: Node's own `_httpMessage`, set while
 * a response is under way and cleared once it is out (`detachSocket`), unchanged since Node 0.x.
 * Read only when the server closes; a Node without it leaves the close as it was (the grace period).
 */
type AnsweringSocket = Socket & { _httpMessage?: ServerResponse | null };

interface Held {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly timer: NodeJS.Timeout;
}

/** A listening HTTP server that can shut down gracefully. */
export class HttpServer {
  #handler: RequestListener;
  /** Until `serve`: answers the requests it can without the app (takeEarly); the others are held. */
  #early: ((req: IncomingMessage, res: ServerResponse) => boolean) | undefined;
  readonly #held = new Set<Held>();
  #observeRejection: RejectionObserver | undefined;
  /** The open connections (added once per connection, not per request): close() ends each once its answer is out. */
  readonly #sockets = new Set<AnsweringSocket>();
  #closing = false;

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
   *
   * A request Node's parser refuses (malformed request line, header or body framing, headers
   * too large), one that does not arrive within `timeouts`, an HTTP/1.1 request without Host,
   * one with an `Expect` other than 100-continue, a CONNECT and one with a Transfer-Encoding
   * other than chunked are answered here, never reaching the app: 4xx or 501 `{error}` with an
   * `x-request-id` and `Connection: close` (rejected-request.ts). An answer the app (or the
   * early intake) gives before the request's body has all arrived closes the connection.
   */
  static async listen(port: number, host: string, hold: StartingHold = STARTING_HOLD, timeouts: RequestTimeouts = REQUEST_TIMEOUTS): Promise<HttpServer> {
    const requestTimeout = timeouts.requestMs;
    const headersTimeout = Math.min(timeouts.headersMs, requestTimeout);
    const server = createServer({
      requestTimeout,
      headersTimeout,
      // Node checks the two timeouts on this interval (30 s by default), so a request is cut
      // between its timeout and its timeout plus the interval.
      connectionsCheckingInterval: Math.max(100, Math.min(5_000, Math.floor(headersTimeout / 4))),
      // Answered below with {error}, instead of Node's bare 400.
      requireHostHeader: false,
    });
    server.keepAliveTimeout = 65_000;
    const http = new HttpServer(server, hold);
    server.on('connection', (socket: AnsweringSocket) => {
      http.#sockets.add(socket);
      socket.once('close', () => http.#sockets.delete(socket));
    });
    const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
      // Stopping: this answer ends its connection (a keep-alive client sends no more on it).
      if (http.#closing) res.setHeader('connection', 'close');
      if (missingHost(req)) http.#rejected(answerRejected(res, 400, 'MISSING_HOST', 'Missing Host header (required by HTTP/1.1)'));
      else if (unsupportedTransferEncoding(req))
        http.#rejected(answerRejected(res, 501, 'UNSUPPORTED_TRANSFER_ENCODING', 'Unsupported Transfer-Encoding (only chunked is)'));
      else http.#handler(req, res);
    };
    server.on('request', onRequest);
    // With this listener Node no longer sends `100 Continue` before the app has seen the request:
    // it is sent when the body is first read, so a request refused before its body is (401, 413)
    // is answered without inviting the body first.
    server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
      continueOnFirstRead(req, res);
      onRequest(req, res);
    });
    // Without this listener Node closes a CONNECT's connection without an answer.
    server.on('connect', (_req: IncomingMessage, socket: Socket) => http.#rejected(answerConnect(socket)));
    // Without this listener Node answers 417 with no body.
    server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) =>
      http.#rejected(answerRejected(res, 417, 'EXPECTATION_FAILED', 'Unsupported Expect header (only 100-continue is)')),
    );
    server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => http.#rejected(answerClientError(error, socket)));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return http;
  }

  /**
   * From now on requests go to `app`, beginning with those that waited for it, in their order,
   * and each request answered without it (listen) is told to `observeRejection`: before, they
   * are answered but not told.
   */
  serve(app: Koa, observeRejection?: RejectionObserver): void {
    const handler = app.callback();
    this.#handler = handler;
    this.#early = undefined;
    this.#observeRejection = observeRejection;
    const waiting = [...this.#held];
    this.#held.clear();
    for (const { req, res, timer } of waiting) {
      clearTimeout(timer);
      if (!res.destroyed) void handler(req, res);
    }
  }

  /**
   * Until `serve`, each request goes to `listener` first: it answers the request and returns
   * true, or returns false having touched nothing, and the request is held as any other.
   */
  takeEarly(listener: (req: IncomingMessage, res: ServerResponse) => boolean): void {
    this.#early = listener;
    // The requests that arrived before (the port is bound first) are offered too: a client that
    // sends its next request only once answered would otherwise wait for the whole start.
    for (const held of [...this.#held]) {
      if (held.res.destroyed || !listener(held.req, held.res)) continue;
      this.#held.delete(held);
      clearTimeout(held.timer);
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
    this.#closing = true;
    for (const held of [...this.#held]) this.#release(held, 'The service stopped before it was ready');
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    // Node keeps a keep-alive connection open after the answer it was giving when the server
    // closed (its answer even says `Connection: keep-alive`), so the close waited for the whole
    // grace period whenever a caller with a kept-alive connection had a request under way. Such
    // an answer now says `Connection: close` and ends its connection once it is out.
    for (const socket of this.#sockets) {
      const answering = socket._httpMessage;
      if (answering === undefined || answering === null || answering.writableEnded) continue;
      if (!answering.headersSent) answering.setHeader('connection', 'close');
      else answering.once('finish', () => socket.end());
    }
    const timer = setTimeout(() => this.server.closeAllConnections(), timeoutMs);
    timer.unref();
    await closed;
    clearTimeout(timer);
  }

  #rejected(rejection: RejectedRequest | undefined): void {
    if (rejection !== undefined) this.#observeRejection?.(rejection);
  }

  #holdUntilServed(req: IncomingMessage, res: ServerResponse): void {
    if (this.#early?.(req, res) === true) return;
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
