import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import compose from 'koa-compose';
import type { AuthenticateApiKey } from '../../application/auth/authenticate-api-key.js';
import type { FireTriggers } from '../../application/triggers/fire-triggers.js';
import { API_PREFIX, lookupRoute, watchPathsOf, type ApiRoute } from '../../domain/auth/route-policy.js';
import { DomainError } from '../../domain/errors/domain-error.js';
import { snapshotRequest, type RequestSnapshot } from '../../domain/templates/request-snapshot.js';
import { PLATFORM_SECRET_CHALLENGE, setChallenge } from './auth-challenge.js';
import { apiKeyAuth, apiKeyRecheck } from './middleware/api-key-auth.js';
import { respondWithError } from './middleware/error-responder.js';
import { jsonBody } from './middleware/json-body.js';
import { signedBody } from './middleware/signed-body.js';
import { answerMethodNotAllowed } from './method-not-allowed.js';

/**
 * Handles one endpoint once its authentication passed; the parsed body is in `ctx.request.body`
 * (a signed route's once its use case parsed it: signedBody).
 */
export type RouteHandler = (ctx: Context) => Promise<void> | void;

export interface ApiRouterOptions {
  /** The route table (domain/auth/routePolicy `apiRoutes`, with the gateway's channels). */
  readonly routes: readonly ApiRoute[];
  /** Headers that carry the channels' credentials, kept out of trigger snapshots (besides CREDENTIAL_HEADERS). */
  readonly credentialHeaders: readonly string[];
  readonly authenticate: AuthenticateApiKey;
  readonly fireTriggers: FireTriggers;
  /** Handlers by route name; a declared route without one answers 501. */
  readonly handlers: Readonly<Record<string, RouteHandler | undefined>>;
  /**
   * Checks by route name that need only the headers (a platform's secret header), run before
   * the body is read: a request that fails one is refused without its body being read,
   * decompressed or parsed.
   */
  readonly beforeBody?: Readonly<Record<string, Middleware | undefined>>;
  readonly bodyLimit: number;
  /** By route name: what a failure before its handler (storing the request for a trigger) becomes, e.g. create-job's `Failed to create job`. */
  readonly failures?: Readonly<Record<string, ((error: unknown) => never) | undefined>>;
}

const notImplemented: RouteHandler = (ctx) => {
  throw new DomainError('not_configured', `${ctx.path} is not available in this version`);
};

/**
 * What a trigger may see of the current request: credential headers removed (the common ones
 * and `credentialHeaders`), and the body's `credentialFields` (ApiRoute).
 */
export const requestSnapshot = (ctx: Context, credentialHeaders: readonly string[], credentialFields?: readonly string[]): RequestSnapshot =>
  snapshotRequest(ctx.request.body, ctx.query, ctx.headers, credentialHeaders, credentialFields);

/**
 * Builds the `/api` router from the route policy table. Order per request: route lookup
 * (404/405 before anything else), authentication by the route's policy, body parsing, the
 * API key checked again (apiKeyRecheck: revoked while the body arrived is a 401), triggers (SPEC 6.1: only once authentication passed; never on a public route), handler. `platform-secret` routes
 * check what their headers alone can tell before the body (`beforeBody`: a header-only secret,
 * a missing or malformed signature), then read their body's bytes, which their handler's use
 * case verifies before it parses them (signedBody); it fires the triggers itself once the
 * request is verified.
 */
export const apiRouter = (options: ApiRouterOptions): Middleware => {
  const router = new Router();
  const body = jsonBody(options.bodyLimit);
  // Routes whose use case verifies a signature over the raw body: their body is read, and parsed
  // only once the request is verified (signedBody), so an unsigned caller gets 401 whatever it
  // sent and never has its body parsed. A channel's webhook also takes a form: Slack posts button
  // presses (interactivity) as `payload=<JSON>`, signed like its events.
  const signed = signedBody(options.bodyLimit);
  const signedJsonOrForm = signedBody(options.bodyLimit, { forms: true });
  // The code host's webhook: GitHub's form content type (its default) posts `payload=<JSON>`.
  const signedReader = (route: ApiRoute): Middleware =>
    route.jsonFormField !== undefined || route.callerKnownAfterBody === true
      ? signedBody(options.bodyLimit, {
          jsonInForm: route.jsonFormField,
          forms: route.channel !== undefined,
          uncompressedOnly: route.callerKnownAfterBody === true,
        })
      : route.channel !== undefined
        ? signedJsonOrForm
        : signed;
  const auth = apiKeyAuth(options.authenticate);
  const recheck = apiKeyRecheck(options.authenticate);
  for (const route of options.routes) {
    const handler = options.handlers[route.name] ?? notImplemented;
    // The route's name reaches the request log through @koa/router (`ctx._matchedRouteName`).
    const chain: Middleware[] = [];
    if (route.auth === 'api-key') chain.push(auth);
    const beforeBody = options.beforeBody?.[route.name];
    if (beforeBody !== undefined) chain.push(beforeBody);
    if (route.method === 'POST') chain.push(route.auth !== 'platform-secret' ? body : signedReader(route));
    // The key again once the body is in: one revoked while the body was arriving fires nothing.
    if (route.auth === 'api-key' && route.method === 'POST') chain.push(recheck);
    // No trigger fires for a public route (ping): it authenticates no one, so anyone could run
    // its actions (trigger files refuse such a watch_path too: validateTriggers).
    if (route.auth === 'api-key') chain.push(fire(route, options));
    // A handler's error (a 4xx of validation, mostly) is answered here, as the request log would:
    // rethrown through every middleware above, it cost a rejected promise per async layer
    // (bench/README.md, "Measurements behind the code"). Not an async function itself: a
    // handler that answers at once (ping, webhook) then costs no promise at all.
    chain.push((ctx) => {
      try {
        const pending = handler(ctx);
        if (pending !== undefined) return pending.catch((error: unknown) => respondWithError(ctx, error));
      } catch (error) {
        respondWithError(ctx, error);
      }
    });
    // A 401 of a platform's webhook names the platform's secret, not the API key (auth-challenge.ts):
    // set by its first middleware (no layer more), before any of its checks can refuse it.
    if (route.auth === 'platform-secret') {
      const first = chain[0];
      chain[0] = (ctx, next) => {
        setChallenge(ctx, PLATFORM_SECRET_CHALLENGE);
        return first(ctx, next);
      };
    }
    // One middleware per route, composed once here: @koa/router composes a matched route's
    // middleware again on every request (koa-compose's flatten, an array concat per middleware),
    // which cost an authenticated POST's chain of five ~0.5–1 µs per request (bench/README.md).
    router.register(route.path, [route.method], chain.length === 1 ? chain : [compose(chain)], { name: route.name });
  }
  const routes = router.routes();
  return (ctx, next) => {
    if (ctx.path !== API_PREFIX && !ctx.path.startsWith(`${API_PREFIX}/`)) return next();
    // Every answer is for its caller alone (a job's status, what a key's request fired, a 401):
    // a cache in front (Varnish keeps an answer without Cache-Control for two minutes, and the
    // key travels in `x-api-key`, which caches do not take for a credential as they do
    // `Authorization`) must neither keep one nor give it to another caller.
    ctx.res.setHeader('cache-control', 'no-store');
    return routes(ctx as Parameters<typeof routes>[0], async () => {
      const found = lookupRoute(ctx.method, ctx.path, options.routes);
      // A GET endpoint answers HEAD too (the router does): Allow says so, as /metrics' and the probes' `GET, HEAD`.
      // Logged and counted under the route of its path (a declared name), as /metrics' and the probes' 405s.
      if (found.kind === 'wrong-method') {
        ctx.state.routeName = found.name;
        return answerMethodNotAllowed(
          ctx,
          found.allowed.flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method])),
        );
      }
      throw new DomainError('not_found', 'Not found');
    });
  };
};

/**
 * Fires the triggers watching the route. Which do is looked up per request, since a reload can
 * add one to a route none watched; a request no trigger watches goes on at once, with no promise
 * of its own.
 */
const fire = (route: ApiRoute, options: ApiRouterOptions): Middleware => {
  const watchPaths = watchPathsOf(route);
  const [watchPath, ...sameEndpointAs] = watchPaths;
  const failed = options.failures?.[route.name];
  return (ctx, next) => {
    if (!options.fireTriggers.watches(watchPaths)) return next();
    return options.fireTriggers
      .execute({ watchPath, sameEndpointAs, request: () => requestSnapshot(ctx, options.credentialHeaders, route.credentialFields) })
      .then((fired) => {
        ctx.state.firedTriggers = fired;
        return next();
      }, failed);
  };
};
