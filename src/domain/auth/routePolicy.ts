/**
 * How each `/api` endpoint authenticates its caller. This table is the one place that
 * says so: the HTTP adapter builds its router from it, so an endpoint cannot exist
 * without a declared policy, and the public exceptions of SPEC 5.1 are the ones listed here.
 */
export type AuthPolicy =
  /** `x-api-key` header matched against the stored keys. */
  | 'api-key'
  /** No authentication at all. */
  | 'public'
  /** A secret shared with a platform (messaging or code host), checked by the endpoint's own verifier. */
  | 'platform-secret';

export type HttpMethod = 'GET' | 'POST';

export interface ApiRoute {
  /** Stable name used by the HTTP adapter to find the handler and in logs and metrics. */
  readonly name: string;
  readonly method: HttpMethod;
  /** Full path including the `/api` prefix. */
  readonly path: string;
  readonly auth: AuthPolicy;
}

export const API_PREFIX = '/api';

export const API_ROUTES: readonly ApiRoute[] = [
  { name: 'ping', method: 'GET', path: '/api/ping', auth: 'public' },
  { name: 'create-job', method: 'POST', path: '/api/create-job', auth: 'api-key' },
  { name: 'job-status', method: 'GET', path: '/api/jobs/status', auth: 'api-key' },
  { name: 'messaging-register', method: 'POST', path: '/api/messaging/register', auth: 'api-key' },
  { name: 'messaging-webhook', method: 'POST', path: '/api/messaging/webhook', auth: 'platform-secret' },
  { name: 'codehost-webhook', method: 'POST', path: '/api/codehost/webhook', auth: 'platform-secret' },
  { name: 'webhook', method: 'POST', path: '/api/webhook', auth: 'api-key' },
];

/** Strips a trailing slash so `/api/ping/` and `/api/ping` are one endpoint. */
const normalizePath = (path: string): string => (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path);

export type RouteLookup =
  | { readonly kind: 'found'; readonly route: ApiRoute }
  | { readonly kind: 'wrong-method'; readonly allowed: readonly HttpMethod[] }
  | { readonly kind: 'unknown' };

/** Finds the route for a request; HEAD is answered like GET. */
export const lookupRoute = (method: string, path: string, routes: readonly ApiRoute[] = API_ROUTES): RouteLookup => {
  const wanted = normalizePath(path);
  const onPath = routes.filter((route) => route.path === wanted);
  if (onPath.length === 0) return { kind: 'unknown' };
  const effective = method === 'HEAD' ? 'GET' : method;
  const route = onPath.find((candidate) => candidate.method === effective);
  return route ? { kind: 'found', route } : { kind: 'wrong-method', allowed: onPath.map((r) => r.method) };
};

/** The path a trigger's `watch_path` is compared with: the endpoint path without `/api`. */
export const watchPathOf = (route: ApiRoute): string => route.path.slice(API_PREFIX.length);
