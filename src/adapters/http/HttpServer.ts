import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';

/** A listening HTTP server that can shut down gracefully. */
export class HttpServer {
  private constructor(private readonly server: Server) {}

  static async listen(app: Koa, port: number, host: string): Promise<HttpServer> {
    const server = createServer(app.callback());
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return new HttpServer(server);
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
