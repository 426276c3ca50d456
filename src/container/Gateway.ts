import type { Container } from 'inversify';
import type { Logger as Pino } from 'pino';
import { AdminSocketServer } from '../adapters/admin/AdminSocketServer.js';
import { adminSocketPath } from '../adapters/admin/adminSocketPath.js';
import { HttpServer } from '../adapters/http/HttpServer.js';
import { createPino, PinoLogger } from '../adapters/logging/PinoLogger.js';
import { Database } from '../adapters/persistence/Database.js';
import { buildContainer } from './buildContainer.js';
import type { AppConfig } from './config.js';
import { TOKENS } from './tokens.js';

/** The running service: database, container, HTTP server and, on the embedded database, the admin socket. */
export class Gateway {
  private constructor(
    readonly config: AppConfig,
    readonly container: Container,
    private readonly pino: Pino,
    private readonly database: Database,
    private readonly http: HttpServer,
    private readonly admin: AdminSocketServer | undefined,
  ) {}

  static async start(config: AppConfig, pino: Pino = createPino(config.logLevel)): Promise<Gateway> {
    const logger = new PinoLogger(pino);
    const database = await Database.open({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, logger });
    try {
      const applied = await database.migrate();
      if (applied.length > 0) pino.info({ migrations: applied }, 'database migrated');
      const container = buildContainer(config, { pino, database });
      const app = await container.getAsync(TOKENS.HttpApp);
      const admin =
        database.engine === 'pglite'
          ? await AdminSocketServer.listen(
              adminSocketPath(config.dataDir),
              await container.getAsync(TOKENS.KeyAdministration),
              container.get(TOKENS.Logger),
            )
          : undefined;
      const http = await HttpServer.listen(app, config.port, config.host);
      pino.info({ port: http.port, host: config.host, database: database.engine }, 'agent gateway listening');
      return new Gateway(config, container, pino, database, http, admin);
    } catch (error) {
      await database.close().catch(() => undefined);
      throw error;
    }
  }

  get port(): number {
    return this.http.port;
  }

  /** Graceful stop: no new connections, in-flight requests finish, then the database closes. */
  async stop(): Promise<void> {
    this.pino.info({}, 'shutting down');
    await this.http.close(this.config.shutdownTimeoutMs);
    await this.admin?.close();
    await this.container.unbindAllAsync();
    await this.database.close();
    this.pino.info({}, 'stopped');
  }
}
