import Router from '@koa/router';
import { API_PREFIX, lookupRoute, watchPathsOf } from '../../domain/auth/route-policy.js';
import { DomainError } from '../../domain/errors/domain-error.js';
import { snapshotRequest } from '../../domain/templates/request-snapshot.js';
import { apiKeyAuth } from './middleware/api-key-auth.js';
import { respondWithError } from './middleware/error-responder.js';
import { formBody } from './middleware/form-body.js';
import { jsonBody } from './middleware/json-body.js';
const notImplemented = (ctx) => {
    throw new DomainError('not_configured', `${ctx.path} is not available in this version`);
};
/** What a trigger may see of the current request (credential headers removed: the common ones and `credentialHeaders`). */
export const requestSnapshot = (ctx, credentialHeaders) => snapshotRequest(ctx.request.body, ctx.query, ctx.headers, credentialHeaders);
/**
 * Builds the `/api` router from the route policy table. Order per request: route lookup
 * (404/405 before anything else), authentication by the route's policy, body parsing,
 * triggers (SPEC 6.1: only once authentication passed), handler. `platform-secret` routes
 * check what their headers alone can tell before the body (`beforeBody`: a header-only secret,
 * a missing or malformed signature), then parse and verify inside their handler, since a
 * signature covers the raw body;
 * their handler fires the triggers itself once the request is verified.
 */
export const apiRouter = (options) => {
    const router = new Router();
    const body = jsonBody(options.bodyLimit);
    // A channel's webhook also takes a form: Slack posts button presses (interactivity) as
    // `payload=<JSON>`, signed like its events. The signature covers the raw body either way.
    const form = formBody(options.bodyLimit);
    const jsonOrForm = (ctx, next) => (ctx.request.is('application/x-www-form-urlencoded') ? form(ctx, next) : body(ctx, next));
    const auth = apiKeyAuth(options.authenticate);
    for (const route of options.routes) {
        const handler = options.handlers[route.name] ?? notImplemented;
        // The route's name reaches the request log through @koa/router (`ctx._matchedRouteName`).
        const chain = [];
        if (route.auth === 'api-key')
            chain.push(auth);
        const beforeBody = options.beforeBody?.[route.name];
        if (beforeBody !== undefined)
            chain.push(beforeBody);
        if (route.method === 'POST')
            chain.push(route.channel !== undefined && route.auth === 'platform-secret' ? jsonOrForm : body);
        // Triggers are fixed at start-up: a route no trigger watches pays nothing for them.
        if (route.auth !== 'platform-secret' && options.fireTriggers.watches(watchPathsOf(route)))
            chain.push(fire(route, options));
        // A handler's error (a 4xx of validation, mostly) is answered here, as the request log would:
        // rethrown through every middleware above, it cost a rejected promise per async layer
        // (bench/README.md, "Measurements behind the code"). Not an async function itself: a
        // handler that answers at once (ping, webhook) then costs no promise at all.
        chain.push((ctx) => {
            try {
                const pending = handler(ctx);
                if (pending !== undefined)
                    return pending.catch((error) => respondWithError(ctx, error));
            }
            catch (error) {
                respondWithError(ctx, error);
            }
        });
        router.register(route.path, [route.method], chain, { name: route.name });
    }
    const routes = router.routes();
    return (ctx, next) => {
        if (ctx.path !== API_PREFIX && !ctx.path.startsWith(`${API_PREFIX}/`))
            return next();
        return routes(ctx, async () => {
            const found = lookupRoute(ctx.method, ctx.path, options.routes);
            if (found.kind === 'wrong-method') {
                ctx.set('Allow', found.allowed.join(', '));
                ctx.status = 405;
                ctx.body = { error: `Method ${ctx.method} is not allowed on ${ctx.path}` };
                return;
            }
            throw new DomainError('not_found', 'Not found');
        });
    };
};
const fire = (route, options) => {
    const [watchPath, ...sameEndpointAs] = watchPathsOf(route);
    return async (ctx, next) => {
        ctx.state.firedTriggers = await options.fireTriggers.execute({ watchPath, sameEndpointAs, request: () => requestSnapshot(ctx, options.credentialHeaders) });
        return next();
    };
};
//# sourceMappingURL=api-router.js.map