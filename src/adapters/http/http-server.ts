import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';

/** Answers every request while the service is still starting. */
const starting: RequestListener = (_req, res) => {
  res.writeHead(503, { 'content-type': 'application/json; charset=utf-8', 'retry-after': '1' });
  res.end(JSON.stringify({ error: 'The service is starting' }));
};

/** A listening HTTP server that can shut down gracefully. */
export class HttpServer {
  private constructor(
    private readonly server: Server,
    /** Replaces the handler every request goes to. */
    private readonly route: (handler: RequestListener) => void,
  ) {}

  /**
   * Binds `host:port` at once, before the rest of the service exists, so that a port in use
   * stops start-up before anything else is opened. Until `serve` is called every request is
   * answered 503 `{error: "The service is starting"}`. Rejects with Node's listen error
   * (`code` EADDRINUSE, EACCES, EADDRNOTAVAIL, ENOTFOUND …).
   */
  static async listen(port: number, host: string): Promise<HttpServer> {
    let handler = starting;
    const server = createServer((req, res) => handler(req, res));
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return new HttpServer(server, (next) => (handler = next));
  }

  /** From now on requests go to `app`. */
  serve(app: Koa): void {
    this.route(app.callback());
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /**
   * Stops accepting connections, lets in-flight requests finish, closes idle keep-alive
   * connections at once and forces the rest closed after `timeoutMs`.
   */
  async close(timeoutMs: number): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    const timer = setTimeout(() => this.server.closeAllConnections(), timeoutMs);
    timer.unref();
    await closed;
    clearTimeout(timer);
  }
}
