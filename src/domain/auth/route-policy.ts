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
  /** The messaging channel the endpoint belongs to. */
  readonly channel?: string;
  /**
   * The watch paths that name this endpoint, its own first, when it has more than one: a
   * channel's endpoint and its alias path are one endpoint, so a trigger watching either
   * fires for a request to either.
   */
  readonly watchPaths?: readonly string[];
  /**
   * Fields of the body that carry credentials (a bot token, a platform's verification token):
   * never in what a trigger sees of the request, so never stored, shown or forwarded. A name, or
   * names joined by `.` for a field inside another, also inside a field holding JSON text
   * (request-snapshot.ts, snapshotRequest).
   */
  readonly credentialFields?: readonly string[];
  /**
   * A `platform-secret` endpoint that also takes an `application/x-www-form-urlencoded` body whose
   * field of this name holds the JSON body: the code host's (GitHub's form content type, its
   * default, posts `payload=<JSON>`).
   */
  readonly jsonFormField?: string;
  /**
   * A `platform-secret` endpoint whose caller is known only once its body is read (a signature
   * over the body, no secret header): a compressed body is refused before it is read, or a caller
   * without the secret could send a kilobyte of gzip that inflates to the body limit and have the
   * service hold it while the rest never comes (the code host's: GitHub never compresses).
   */
  readonly callerKnownAfterBody?: true;
}

/** A messaging channel's endpoints: `/api/messaging/<id>/webhook`, and `/api/messaging/<id>/register` where the platform has registration. */
export interface ChannelRoutes {
  /** Lower-case letters, digits and `-`, starting with a letter. */
  readonly id: string;
  readonly registers: boolean;
  /**
   * The credential fields of the bodies the platform posts to the channel's webhook (ApiRoute
   * `credentialFields`): declared by the channel with its other facts, given to its webhook
   * route (and its alias) here, so the handler and the snapshot need to know no platform.
   */
  readonly webhookCredentialFields?: readonly string[];
  /**
   * The platform signs its webhook's body and sends no secret header (Slack): the caller is known
   * only once the body is read, and the webhook route (and its alias) is `callerKnownAfterBody`.
   */
  readonly webhookCallerKnownAfterBody?: true;
}

export const API_PREFIX = '/api';

/** The endpoints that belong to no channel. */
const FIXED_ROUTES: readonly ApiRoute[] = [
  { name: 'ping', method: 'GET', path: '/api/ping', auth: 'public' },
  { name: 'create-job', method: 'POST', path: '/api/create-job', auth: 'api-key' },
  { name: 'job-status', method: 'GET', path: '/api/jobs/status', auth: 'api-key' },
  { name: 'codehost-webhook', method: 'POST', path: '/api/codehost/webhook', auth: 'platform-secret', jsonFormField: 'payload', callerKnownAfterBody: true },
  { name: 'webhook', method: 'POST', path: '/api/webhook', auth: 'api-key' },
];

const CHANNEL_ID = /^[a-z][a-z0-9-]{0,31}$/;
/** The paths of SPEC 4.3 and 4.4, from before channels had paths of their own: aliases of one channel's. */
const ALIAS_WEBHOOK = '/api/messaging/webhook';
const ALIAS_REGISTER = '/api/messaging/register';
/** A registration's body carries the bot's token. */
const REGISTER_CREDENTIALS: readonly string[] = ['bot_token'];

/**
 * The route table for the given messaging channels: the fixed endpoints, then per channel
 * `POST /api/messaging/<id>/webhook` (authenticated by the platform's secret) and, where the
 * platform has registration, `POST /api/messaging/<id>/register` (API key). The channel named
 * `aliasChannel` also answers on `/api/messaging/webhook` and `/api/messaging/register`,
 * as one endpoint with its own (the same auth, the same handler, the same triggers).
 */
export const apiRoutes = (channels: readonly ChannelRoutes[], aliasChannel?: string): ApiRoute[] => {
  const routes = [...FIXED_ROUTES];
  for (const channel of channels) {
    if (!CHANNEL_ID.test(channel.id)) throw new Error(`Invalid channel id: ${JSON.stringify(channel.id)}`);
    const aliased = channel.id === aliasChannel;
    const webhook = `${API_PREFIX}/messaging/${channel.id}/webhook`;
    const register = `${API_PREFIX}/messaging/${channel.id}/register`;
    const watch = (own: string, alias: string): readonly string[] | undefined => (aliased ? [own, alias].map(toWatchPath) : undefined);
    const common = { method: 'POST', channel: channel.id } as const;
    const fields = channel.webhookCredentialFields ?? [];
    const receiving = {
      ...common,
      auth: 'platform-secret',
      ...(fields.length > 0 ? { credentialFields: fields } : {}),
      ...(channel.webhookCallerKnownAfterBody === true ? { callerKnownAfterBody: true as const } : {}),
    } as const;
    routes.push({ ...receiving, name: `messaging-webhook:${channel.id}`, path: webhook, watchPaths: watch(webhook, ALIAS_WEBHOOK) });
    if (aliased) routes.push({ ...receiving, name: 'messaging-webhook', path: ALIAS_WEBHOOK, watchPaths: watch(ALIAS_WEBHOOK, webhook) });
    if (channel.registers) {
      const registering = { ...common, auth: 'api-key', credentialFields: REGISTER_CREDENTIALS } as const;
      routes.push({ ...registering, name: `messaging-register:${channel.id}`, path: register, watchPaths: watch(register, ALIAS_REGISTER) });
      if (aliased) routes.push({ ...registering, name: 'messaging-register', path: ALIAS_REGISTER, watchPaths: watch(ALIAS_REGISTER, register) });
    }
  }
  return routes;
};

/** Strips a trailing slash so `/api/ping/` and `/api/ping` are one endpoint. */
const normalizePath = (path: string): string => (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path);

export type RouteLookup =
  | { readonly kind: 'found'; readonly route: ApiRoute }
  /** `name`: the route on the path (the first, when several methods share it), for logs and metrics. */
  | { readonly kind: 'wrong-method'; readonly name: string; readonly allowed: readonly HttpMethod[] }
  | { readonly kind: 'unknown' };

/** Finds the route for a request in `routes`; HEAD is answered like GET. */
export const lookupRoute = (method: string, path: string, routes: readonly ApiRoute[]): RouteLookup => {
  // In any case, as the router matches paths (`POST /api/Webhook` is the webhook): a wrong method
  // on such a path is a 405 too, not a 404.
  const wanted = normalizePath(path).toLowerCase();
  const onPath = routes.filter((route) => route.path.toLowerCase() === wanted);
  if (onPath.length === 0) return { kind: 'unknown' };
  const effective = method === 'HEAD' ? 'GET' : method;
  const route = onPath.find((candidate) => candidate.method === effective);
  return route ? { kind: 'found', route } : { kind: 'wrong-method', name: onPath[0].name, allowed: onPath.map((r) => r.method) };
};

const toWatchPath = (path: string): string => path.slice(API_PREFIX.length);

/** The path a trigger's `watch_path` is compared with: the endpoint path without `/api`. */
export const watchPathOf = (route: ApiRoute): string => toWatchPath(route.path);

/** Every watch path naming the route's endpoint, its own first (see ApiRoute.watchPaths). */
export const watchPathsOf = (route: ApiRoute): readonly string[] => route.watchPaths ?? [watchPathOf(route)];
