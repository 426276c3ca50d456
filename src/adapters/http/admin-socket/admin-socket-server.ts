import { chmod, unlink } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { dirname } from 'node:path';
import type { Socket } from 'node:net';
import Router from '@koa/router';
import Koa from 'koa';
import type { KeyAdministration } from '../../../application/auth/api-key-administration.js';
import { parseDeliveryFilter, type DeliveryHistory } from '../../../application/triggers/delivery-history.js';
import type { ReplayOutcome } from '../../../application/triggers/fire-triggers.js';
import { DomainError } from '../../../domain/errors/domain-error.js';
import type { Logger } from '../../../ports/logger.js';
import { answerFor } from '../error-status.js';
import { jsonBody } from '../middleware/json-body.js';
import { type DirectoryIdentity, directoryIdentity } from '../../shared/directory-identity.js';

/** The migrations as the running server knows them (the CLI's `migrate` reports it). */
export interface MigrationReport {
  /** What this server applied when it started, oldest first; empty when the database was current. */
  readonly appliedAtStart: readonly string[];
  /** Every migration the database records as applied, now. */
  readonly recorded: readonly string[];
}

/** What the socket serves besides keys. */
export interface AdminOperations {
  setAdminPassword(password: string): Promise<void>;
  migrations(): Promise<MigrationReport>;
  /** Reloads the trigger and schedule files (ConfigReloader); problems keep the running set. */
  reload(): Promise<ReloadReport>;
  /** The delivery log (`agent-gateway deliveries list|show`). */
  readonly deliveries: Pick<DeliveryHistory, 'list' | 'show'>;
  /** `agent-gateway deliveries replay ID`. */
  replay(requestId: string): Promise<ReplayOutcome>;
}

/** What a reload did: the counts now in force, or every problem of the refused files. */
export interface ReloadReport {
  readonly ok: boolean;
  readonly problems: readonly string[];
  readonly triggers: number;
  readonly schedules: number;
}

const MAX_BODY = 16 * 1024;
/** How long close() lets a request being answered finish before it drops the connection. */
const CLOSE_GRACE_MS = 5000;

const fieldsOf = (body: unknown): Record<string, unknown> =>
  typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};

/**
 * The socket's Koa app: the same JSON body parser and error table as the API. Errors answer
 * `{code, error}` so the CLI can rebuild the domain error; a 500's detail goes to the log.
 */
const adminSocketApp = (admin: KeyAdministration, operations: AdminOperations, logger: Logger, served: DirectoryIdentity): Koa => {
  const app = new Koa();
  app.silent = true;
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const answer = answerFor(error);
      if (answer.logged !== undefined) logger.error({ err: answer.logged, method: ctx.method, path: ctx.path }, 'admin socket request failed');
      ctx.status = answer.status;
      ctx.body = { code: answer.code, error: answer.message };
    }
  });
  const body = jsonBody(MAX_BODY);
  const router = new Router();
  // Who answers: the CLI checks that the server is up, which process it is and which data
  // directory it serves (a copy of DATA_DIR made with a link to this socket reaches this server).
  router.get('/status', (ctx) => {
    ctx.body = { pid: process.pid, dataDir: served };
  });
  router.get('/migrations', async (ctx) => {
    ctx.body = await operations.migrations();
  });
  router.post('/reload', async (ctx) => {
    ctx.body = await operations.reload();
  });
  router.get('/keys', async (ctx) => {
    ctx.body = { keys: await admin.list() };
  });
  router.post('/keys', body, async (ctx) => {
    ctx.body = await admin.create(fieldsOf(ctx.request.body).name as string);
  });
  router.post('/admin-password', body, async (ctx) => {
    // The CLI sends a string; anything else (a number kept as its text has no toString) is no password.
    const { password } = fieldsOf(ctx.request.body);
    await operations.setAdminPassword(typeof password === 'string' ? password : '');
    ctx.body = { ok: true };
  });
  router.get('/deliveries', async (ctx) => {
    ctx.body = { deliveries: await operations.deliveries.list(parseDeliveryFilter(ctx.query)) };
  });
  router.get('/deliveries/:id', async (ctx) => {
    ctx.body = await operations.deliveries.show(ctx.params.id);
  });
  router.post('/deliveries/:id/replay', async (ctx) => {
    ctx.body = await operations.replay(ctx.params.id);
  });
  router.delete('/keys/:id', async (ctx) => {
    await admin.revoke(ctx.params.id);
    ctx.body = { ok: true };
  });
  app.use(router.routes());
  app.use(() => {
    throw new DomainError('not_found', 'Not found');
  });
  return app;
};

/**
 * Administration over a Unix socket in DATA_DIR — keys, the admin password, the state of the
 * migrations — for the CLI while the server holds the embedded database (PGlite is single-process). The socket is owner-only (0600)
 * inside an owner-only directory: only the account running the service can use it.
 */
export class AdminSocketServer {
  /** Every open connection, and those with a request being answered. */
  readonly #sockets = new Set<Socket>();
  readonly #answering = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    private readonly path: string,
  ) {
    server.on('connection', (socket: Socket) => {
      this.#sockets.add(socket);
      socket.once('close', () => {
        this.#sockets.delete(socket);
        this.#answering.delete(socket);
      });
    });
    server.on('request', (request, response) => {
      this.#answering.add(request.socket);
      response.once('close', () => this.#answering.delete(request.socket));
    });
  }

  static async listen(path: string, admin: KeyAdministration, operations: AdminOperations, logger: Logger): Promise<AdminSocketServer> {
    await unlink(path).catch(() => undefined);
    // The socket is made in the data directory it serves (adminSocketPath).
    const served = await directoryIdentity(dirname(path));
    const server = createServer(adminSocketApp(admin, operations, logger, served).callback());
    // Created owner-only (the umask in force while it is made), not made so after: in between,
    // with a permissive umask and a DATA_DIR the operator made readable, another account could
    // connect and set the admin password. The chmod after is for file systems that ignore it.
    const umask = process.umask(0o177);
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(path, () => resolve());
      });
    } finally {
      process.umask(umask);
    }
    await chmod(path, 0o600);
    return new AdminSocketServer(server, path);
  }

  /**
   * Stops listening, lets the requests being answered finish (for at most `graceMs`), and drops
   * every other connection at once: one that sent nothing or half a request (a CLI stopped
   * mid-way) would otherwise hold the service's stop for good, since Node stops timing out
   * a closing server's connections.
   */
  async close(graceMs = CLOSE_GRACE_MS): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.#sockets) if (!this.#answering.has(socket)) socket.destroy();
    // A connection whose answer is sent is idle: dropped once it is, not kept alive.
    const idle = setInterval(() => this.server.closeIdleConnections(), 100);
    const overdue = setTimeout(() => this.server.closeAllConnections(), graceMs);
    try {
      await closed;
    } finally {
      clearInterval(idle);
      clearTimeout(overdue);
    }
    await unlink(this.path).catch(() => undefined);
  }
}
