import Koa from 'koa';
import { API_PREFIX } from '../../domain/auth/route-policy.js';
import { DomainError } from '../../domain/errors/domain-error.js';
import { apiRouter } from './api-router.js';
import { adminUi } from './admin/admin-ui.js';
import { apiChecksBeforeBody, apiHandlers } from './handlers.js';
import { requestLog } from './middleware/request-log.js';
/**
 * Probes for operators and orchestrators, outside `/api` and without a key:
 * `/healthz` — the process answers; `/readyz` — the database and the queue answer too.
 */
const operations = (checkReadiness) => async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD')
        return next();
    if (ctx.path === '/healthz') {
        ctx.state.routeName = 'healthz';
        ctx.body = { status: 'ok' };
        return;
    }
    if (ctx.path === '/readyz') {
        ctx.state.routeName = 'readyz';
        const readiness = await checkReadiness.execute();
        ctx.status = readiness.ready ? 200 : 503;
        ctx.body = { status: readiness.ready ? 'ready' : 'not ready', checks: readiness.checks };
        return;
    }
    return next();
};
const notFound = () => {
    throw new DomainError('not_found', 'Not found');
};
/**
 * The Koa application: the request log (which also answers every failure), then one of four
 * parts chosen by the path's first segment — `/api` (the router), `/settings` (the admin UI),
 * `/metrics`, the probes — and 404 for everything else. Choosing once, instead of passing each
 * request through every part in turn, keeps an API request at two layers before the router.
 */
export const createHttpApp = (deps) => {
    const app = new Koa();
    app.silent = true;
    app.proxy = deps.trustProxy;
    const api = apiRouter({
        routes: deps.routes,
        credentialHeaders: deps.credentialHeaders,
        authenticate: deps.authenticate,
        fireTriggers: deps.fireTriggers,
        handlers: apiHandlers(deps),
        beforeBody: apiChecksBeforeBody(deps),
        bodyLimit: deps.bodyLimit,
    });
    const admin = adminUi(deps.admin);
    const metrics = deps.metrics.endpoint();
    const probes = operations(deps.checkReadiness);
    app.use(requestLog(deps.pino, (route, method, status, seconds) => deps.metrics.observe(route, method, status, seconds)));
    app.use((ctx) => {
        const path = ctx.path;
        // Each part checks the whole path itself and hands what it does not serve to `notFound`.
        if (path.startsWith(API_PREFIX))
            return api(ctx, notFound);
        if (path.startsWith('/settings'))
            return admin(ctx, notFound);
        if (path === '/metrics')
            return metrics(ctx, notFound);
        return probes(ctx, notFound);
    });
    return app;
};
//# sourceMappingURL=http-app.js.map