import type { Context } from 'koa';
import { API_PREFIX } from '../../domain/auth/route-policy.js';

/**
 * The challenge of a 401 on an `/api` endpoint that takes an API key (RFC 9110 11.6.1: a 401
 * names at least one challenge applicable to its resource): a scheme of our own, since the key
 * travels in `x-api-key`, not in `Authorization`.
 */
export const API_KEY_CHALLENGE = 'ApiKey realm="agent-gateway", header="x-api-key"';

/**
 * The challenge of a 401 on a platform's webhook (the code host's, a chat channel's): the
 * request is authenticated by the secret shared with the platform — a signature over the body
 * made with it, or the secret in a header — which only the platform's settings can give; no API
 * key is taken there.
 */
export const PLATFORM_SECRET_CHALLENGE = 'PlatformSecret realm="agent-gateway"';

/**
 * The challenge of a 401 of `/metrics` behind METRICS_TOKEN: the token as a bearer token
 * (RFC 6750 §3), with `error="invalid_token"` when a bearer token was sent that is not it (none
 * when no bearer credentials came, as §3.1 asks). A realm of its own: the metrics token is not an
 * API key.
 */
export const metricsChallenge = (bearerSent: boolean): string =>
  bearerSent ? 'Bearer realm="agent-gateway metrics", error="invalid_token"' : 'Bearer realm="agent-gateway metrics"';

/**
 * The challenge of a 401 of the admin UI: a session cookie, which the login form at
 * `/settings/login` sets (`cookieName`: `agw_session`, or over HTTPS `__Host-agw_session`). No
 * registered scheme says so; this is the `Cookie` scheme of draft-broyer-http-cookie-auth, whose
 * parameters name the form and the cookie.
 */
export const adminSessionChallenge = (cookieName: string): string =>
  `Cookie realm="agent-gateway admin", form-action="/settings/login", cookie-name="${cookieName}"`;

/** Where a route that is not authenticated by an API key leaves its challenge (the api router sets it). */
const CHALLENGE = Symbol('authentication challenge');

type WithChallenge = { [CHALLENGE]?: string };

/** Sets the challenge a 401 of this request carries, when it is not API_KEY_CHALLENGE. */
export const setChallenge = (ctx: Context, challenge: string): void => {
  (ctx.state as WithChallenge)[CHALLENGE] = challenge;
};

/**
 * The `WWW-Authenticate` of a 401 answered for `ctx`: the one its route set, else, under `/api`,
 * API_KEY_CHALLENGE; undefined elsewhere (the admin UI and /metrics answer their own).
 */
export const challengeOf = (ctx: Context): string | undefined =>
  (ctx.state as WithChallenge)[CHALLENGE] ?? (ctx.path === API_PREFIX || ctx.path.startsWith(`${API_PREFIX}/`) ? API_KEY_CHALLENGE : undefined);
