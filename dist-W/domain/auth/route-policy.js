export const API_PREFIX = '/api';
/** The endpoints that belong to no channel. */
const FIXED_ROUTES = [
    { name: 'ping', method: 'GET', path: '/api/ping', auth: 'public' },
    { name: 'create-job', method: 'POST', path: '/api/create-job', auth: 'api-key' },
    { name: 'job-status', method: 'GET', path: '/api/jobs/status', auth: 'api-key' },
    { name: 'codehost-webhook', method: 'POST', path: '/api/codehost/webhook', auth: 'platform-secret' },
    { name: 'webhook', method: 'POST', path: '/api/webhook', auth: 'api-key' },
];
const CHANNEL_ID = /^[a-z][a-z0-9-]{0,31}$/;
/** The paths of SPEC 4.3 and 4.4, from before channels had paths of their own: aliases of one channel's. */
const ALIAS_WEBHOOK = '/api/messaging/webhook';
const ALIAS_REGISTER = '/api/messaging/register';
/**
 * The route table for the given messaging channels: the fixed endpoints, then per channel
 * `POST /api/messaging/<id>/webhook` (authenticated by the platform's secret) and, where the
 * platform has registration, `POST /api/messaging/<id>/register` (API key). The channel named
 * `aliasChannel` also answers on `/api/messaging/webhook` and `/api/messaging/register`,
 * as one endpoint with its own (the same auth, the same handler, the same triggers).
 */
export const apiRoutes = (channels, aliasChannel) => {
    const routes = [...FIXED_ROUTES];
    for (const channel of channels) {
        if (!CHANNEL_ID.test(channel.id))
            throw new Error(`Invalid channel id: ${JSON.stringify(channel.id)}`);
        const aliased = channel.id === aliasChannel;
        const webhook = `${API_PREFIX}/messaging/${channel.id}/webhook`;
        const register = `${API_PREFIX}/messaging/${channel.id}/register`;
        const watch = (own, alias) => (aliased ? [own, alias].map(toWatchPath) : undefined);
        const common = { method: 'POST', channel: channel.id };
        routes.push({ ...common, name: `messaging-webhook:${channel.id}`, path: webhook, auth: 'platform-secret', watchPaths: watch(webhook, ALIAS_WEBHOOK) });
        if (aliased)
            routes.push({ ...common, name: 'messaging-webhook', path: ALIAS_WEBHOOK, auth: 'platform-secret', watchPaths: watch(ALIAS_WEBHOOK, webhook) });
        if (channel.registers) {
            routes.push({ ...common, name: `messaging-register:${channel.id}`, path: register, auth: 'api-key', watchPaths: watch(register, ALIAS_REGISTER) });
            if (aliased)
                routes.push({ ...common, name: 'messaging-register', path: ALIAS_REGISTER, auth: 'api-key', watchPaths: watch(ALIAS_REGISTER, register) });
        }
    }
    return routes;
};
/** Strips a trailing slash so `/api/ping/` and `/api/ping` are one endpoint. */
const normalizePath = (path) => (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path);
/** Finds the route for a request in `routes`; HEAD is answered like GET. */
export const lookupRoute = (method, path, routes) => {
    const wanted = normalizePath(path);
    const onPath = routes.filter((route) => route.path === wanted);
    if (onPath.length === 0)
        return { kind: 'unknown' };
    const effective = method === 'HEAD' ? 'GET' : method;
    const route = onPath.find((candidate) => candidate.method === effective);
    return route ? { kind: 'found', route } : { kind: 'wrong-method', allowed: onPath.map((r) => r.method) };
};
const toWatchPath = (path) => path.slice(API_PREFIX.length);
/** The path a trigger's `watch_path` is compared with: the endpoint path without `/api`. */
export const watchPathOf = (route) => toWatchPath(route.path);
/** Every watch path naming the route's endpoint, its own first (see ApiRoute.watchPaths). */
export const watchPathsOf = (route) => route.watchPaths ?? [watchPathOf(route)];
//# sourceMappingURL=route-policy.js.map