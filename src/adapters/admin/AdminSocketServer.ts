import { chmod, unlink } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { KeyAdministration } from '../../application/ApiKeyAdministration.js';

/** What the socket serves besides keys. */
export interface AdminOperations {
  setAdminPassword(password: string): Promise<void>;
}
import { DomainError, isDomainError } from '../../domain/errors/DomainError.js';
import type { Logger } from '../../ports/Logger.js';

const MAX_BODY = 16 * 1024;

/**
 * Key administration over a Unix socket in DATA_DIR, for the CLI while the server holds
 * the embedded database (PGlite is single-process). The socket is owner-only (0600)
 * inside an owner-only directory: only the account running the service can use it.
 */
export class AdminSocketServer {
  private constructor(private readonly server: Server, private readonly path: string) {}

  static async listen(path: string, admin: KeyAdministration, operations: AdminOperations, logger: Logger): Promise<AdminSocketServer> {
    await unlink(path).catch(() => undefined);
    const server = createServer((req, res) => {
      handle(req, res, admin, operations).catch((error: unknown) => {
        logger.error({ err: error }, 'admin socket request failed');
        reply(res, 500, { code: 'internal', error: 'Internal error' });
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => resolve());
    });
    await chmod(path, 0o600);
    return new AdminSocketServer(server, path);
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await unlink(this.path).catch(() => undefined);
  }
}

const reply = (res: ServerResponse, status: number, body: unknown): void => {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

const readJson = async (req: IncomingMessage): Promise<Record<string, unknown>> => {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw new DomainError('payload_too_large', 'Request body too large');
    chunks.push(chunk);
  }
  try {
    const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    throw new DomainError('invalid_input', 'Invalid JSON body');
  }
};

const handle = async (req: IncomingMessage, res: ServerResponse, admin: KeyAdministration, operations: AdminOperations): Promise<void> => {
  const url = new URL(req.url ?? '/', 'http://admin');
  try {
    if (req.method === 'GET' && url.pathname === '/keys') return reply(res, 200, { keys: await admin.list() });
    if (req.method === 'POST' && url.pathname === '/keys') {
      const body = await readJson(req);
      return reply(res, 200, await admin.create(body.name as string));
    }
    if (req.method === 'POST' && url.pathname === '/admin-password') {
      const body = await readJson(req);
      await operations.setAdminPassword(String(body.password ?? ''));
      return reply(res, 200, { ok: true });
    }
    const match = /^\/keys\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'DELETE' && match) {
      await admin.revoke(decodeURIComponent(match[1]));
      return reply(res, 200, { ok: true });
    }
    reply(res, 404, { code: 'not_found', error: 'Not found' });
  } catch (error) {
    if (!isDomainError(error)) throw error;
    reply(res, error.code === 'internal' ? 500 : 400, { code: error.code, error: error.message });
  }
};
