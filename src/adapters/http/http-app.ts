import Koa from 'koa';
import type { Logger as Pino } from 'pino';
import type { AuthenticateApiKey } from '../../application/auth/authenticate-api-key.js';
import type { CheckReadiness } from '../../application/operations/check-readiness.js';
import type { CreateJobOnce } from '../../application/jobs/create-job-once.js';
import type { FireTriggers } from '../../application/triggers/fire-triggers.js';
import type { GetJobStatus } from '../../application/jobs/get-job-status.js';
import type { ReceiveCodehostEvent } from '../../application/codehost/receive-codehost-event.js';
import type { ReceiveMessagingUpdate } from '../../application/messaging/receive-messaging-update.js';
import type { RegisterMessagingWebhook } from '../../application/messaging/register-messaging-webhook.js';
import { API_PREFIX, type ApiRoute } from '../../domain/auth/route-policy.js';
import { DomainError } from '../../domain/errors/domain-error.js';
import { apiRouter } from './api-router.js';
import { adminHostGuard, type AdminHosts } from './admin/admin-host.js';
import { adminUi, type AdminUiDependencies } from './admin/admin-ui.js';
import { answerMethodNotAllowed } from './method-not-allowed.js';
import type { PrometheusMetrics } from './prometheus-metrics.js';
import { apiChecksBeforeBody, apiHandlers, rethrowAsFailedToCreateJob } from './handlers.js';
import { requestLog } from './middleware/request-log.js';

export interface HttpAppDependencies {
  /** The route table, with the gateway's messaging channels (domain/auth/routePolicy `apiRoutes`). */
  readonly routes: readonly ApiRoute[];
  /** Headers carrying the channels' credentials: kept out of trigger snapshots. */
  readonly credentialHeaders: readonly string[];
  readonly pino: Pino;
  readonly authenticate: AuthenticateApiKey;
  readonly createJob: CreateJobOnce;
  readonly getJobStatus: GetJobStatus;
  readonly fireTriggers: FireTriggers;
  readonly receiveCodehostEvent: ReceiveCodehostEvent;
  readonly registerMessagingWebhook: RegisterMessagingWebhook;
  readonly receiveMessagingUpdate: ReceiveMessagingUpdate;
  readonly checkReadiness: CheckReadiness;
  readonly metrics: PrometheusMetrics;
  readonly admin: AdminUiDependencies;
  readonly bodyLimit: number;
  /** Reverse proxies in front (TRUST_PROXY): their headers are trusted, and the client address is the one the outermost appended. */
  readonly trustedProxies: number;
  /**
   * The host names the admin UI answers under besides IP addresses and `localhost` (ADMIN_HOSTS,
   * PUBLIC_URL's host); behind a trusted proxy, any (admin-host.ts).
   */
  readonly adminHosts: AdminHosts;
}

/**
 * Probes for operators and orchestrators, outside `/api` and without a key:
 * `/healthz` — the process answers; `/readyz` — the database and the queue answer too. GET and
 * HEAD; another method is 405.
 */
const operations =
  (checkReadiness: CheckReadiness): Koa.Middleware =>
  async (ctx, next) => {
    if (ctx.path !== '/healthz' && ctx.path !== '/readyz') return next();
    ctx.state.routeName = ctx.path.slice(1);
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return answerMethodNotAllowed(ctx, ['GET', 'HEAD']);
    if (ctx.path === '/healthz') {
      ctx.body = { status: 'ok' };
      return;
    }
    const readiness = await checkReadiness.execute();
    ctx.status = readiness.ready ? 200 : 503;
    ctx.body = { status: readiness.ready ? 'ready' : 'not ready', checks: readiness.checks };
  };

const notFound = (): never => {
  throw new DomainError('not_found', 'Not found');
};

/**
 * The Koa application: the request log (which also answers every failure), then one of four
 * parts chosen by the path's first segment — `/api` (the router), `/settings` (the admin UI),
 * `/metrics`, the probes — and 404 for everything else. Choosing once, instead of passing each
 * request through every part in turn, keeps an API request at two layers before the router.
 */
export const createHttpApp = (deps: HttpAppDependencies): Koa => {
  const app = new Koa();
  app.silent = true;
  app.proxy = deps.trustedProxies > 0;
  // X-Forwarded-For is `<whatever the client sent>, <added by proxy 1>, …`: only the addresses
  // the trusted proxies appended count, or a client would choose its own address (and escape
  // the login limit by changing it at each attempt).
  app.maxIpsCount = deps.trustedProxies;
  const api = apiRouter({
    routes: deps.routes,
    credentialHeaders: deps.credentialHeaders,
    authenticate: deps.authenticate,
    fireTriggers: deps.fireTriggers,
    handlers: apiHandlers(deps),
    beforeBody: apiChecksBeforeBody(deps),
    bodyLimit: deps.bodyLimit,
    failures: { 'create-job': rethrowAsFailedToCreateJob },
  });
  const adminPages = adminUi(deps.admin);
  // A request under a name that is not the service's (DNS rebinding) never reaches the admin UI.
  const adminHost = adminHostGuard(deps.adminHosts, deps.admin.logger);
  const admin: Koa.Middleware = (ctx, next) => adminHost(ctx, () => adminPages(ctx, next));
  const metrics = deps.metrics.endpoint();
  const probes = operations(deps.checkReadiness);
  app.use(requestLog(deps.pino, (route, method, status, seconds) => deps.metrics.observe(route, method, status, seconds)));
  app.use((ctx) => {
    const path = ctx.path;
    // Each part checks the whole path itself and hands what it does not serve to `notFound`.
    if (path.startsWith(API_PREFIX)) return api(ctx, notFound);
    if (path.startsWith('/settings')) return admin(ctx, notFound);
    if (path === '/metrics') return metrics(ctx, notFound);
    return probes(ctx, notFound);
  });
  return app;
};
