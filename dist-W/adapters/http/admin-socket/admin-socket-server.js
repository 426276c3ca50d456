import { chmod, unlink } from 'node:fs/promises';
import { createServer } from 'node:http';
import Router from '@koa/router';
import Koa from 'koa';
import { parseDeliveryFilter } from '../../../application/triggers/delivery-history.js';
import { DomainError } from '../../../domain/errors/domain-error.js';
import { answerFor } from '../error-status.js';
import { jsonBody } from '../middleware/json-body.js';
const MAX_BODY = 16 * 1024;
const fieldsOf = (body) => typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {};
/**
 * The socket's Koa app: the same JSON body parser and error table as the API. Errors answer
 * `{code, error}` so the CLI can rebuild the domain error; a 500's detail goes to the log.
 */
const adminSocketApp = (admin, operations, logger) => {
    const app = new Koa();
    app.silent = true;
    app.use(async (ctx, next) => {
        try {
            await next();
        }
        catch (error) {
            const answer = answerFor(error);
            if (answer.logged !== undefined)
                logger.error({ err: answer.logged, method: ctx.method, path: ctx.path }, 'admin socket request failed');
            ctx.status = answer.status;
            ctx.body = { code: answer.code, error: answer.message };
        }
    });
    const body = jsonBody(MAX_BODY);
    const router = new Router();
    // Who answers: the CLI checks that the server is up (and which process it is).
    router.get('/status', (ctx) => {
        ctx.body = { pid: process.pid };
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
        ctx.body = await admin.create(fieldsOf(ctx.request.body).name);
    });
    router.post('/admin-password', body, async (ctx) => {
        await operations.setAdminPassword(String(fieldsOf(ctx.request.body).password ?? ''));
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
    server;
    path;
    constructor(server, path) {
        this.server = server;
        this.path = path;
    }
    static async listen(path, admin, operations, logger) {
        await unlink(path).catch(() => undefined);
        const server = createServer(adminSocketApp(admin, operations, logger).callback());
        await new Promise((resolve, reject) => {
            server.once('error', reject);
            server.listen(path, () => resolve());
        });
        await chmod(path, 0o600);
        return new AdminSocketServer(server, path);
    }
    async close() {
        await new Promise((resolve) => this.server.close(() => resolve()));
        await unlink(this.path).catch(() => undefined);
    }
}
//# sourceMappingURL=admin-socket-server.js.map