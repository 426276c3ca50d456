import { isIPv4 } from 'node:net';
import type { Context, Middleware } from 'koa';
import type { Logger } from '../../../ports/logger.js';

/** The names the admin UI answers under (ADMIN_HOSTS, PUBLIC_URL's host), or every name (`*`, or behind a trusted proxy). */
export interface AdminHosts {
  /** Lower-case host names, without a port or a trailing dot. */
  readonly names: readonly string[];
  /** Any name: `ADMIN_HOSTS=*`, or TRUST_PROXY (the proxy chooses which names reach the service). */
  readonly any: boolean;
}

/**
 * The names the admin UI answers under, from the settings: ADMIN_HOSTS (`*`: any), PUBLIC_URL's
 * host; behind a trusted proxy (TRUST_PROXY) any name when ADMIN_HOSTS lists none — the proxy
 * chooses which names reach the service (over HTTPS its certificate refuses a rebound name) —,
 * but ADMIN_HOSTS when it lists some: a proxy that passes any `Host` on (a plain-HTTP listener,
 * a catch-all server) is no guard, and the names given are not to be ignored.
 */
export const adminHostsOf = (settings: {
  readonly adminHosts: readonly string[];
  readonly publicUrl?: string;
  readonly trustedProxies: number;
}): AdminHosts => ({
  names: [...settings.adminHosts, ...(settings.publicUrl === undefined ? [] : [new URL(settings.publicUrl).hostname.toLowerCase()])],
  any: settings.adminHosts.includes('*') || (settings.trustedProxies > 0 && settings.adminHosts.length === 0),
});

/**
 * The host name of a `Host` header (`gateway.lan:3000` → `gateway.lan`, `[::1]:3000` → `[::1]`),
 * lower-case and without a trailing dot, as a browser would have written it; undefined when it is
 * no host at all.
 */
const hostNameOf = (header: string): string | undefined => {
  if (header === '' || /[\s/?#@\\]/.test(header)) return undefined;
  try {
    return new URL(`http://${header}`).hostname.replace(/\.$/, '');
  } catch {
    return undefined;
  }
};

/**
 * Whether a request's `Host` names this service as a browser may reach it without a name an
 * attacker's DNS can answer: an IP address, `localhost` or a `*.localhost` name (browsers resolve
 * these themselves, to the loopback), or one of `hosts.names`. A page of another site whose name
 * its DNS points at this service afterwards (DNS rebinding: `http://evil.example:3000`, resolved
 * to 127.0.0.1 once the page is loaded) is same-origin with itself for the browser, so its
 * requests pass the admin UI's origin checks, read the login page's nonce and post logins — under
 * its own name in `Host`, which is what gives it away.
 */
export const isAdminHost = (header: string, hosts: AdminHosts): boolean => {
  if (hosts.any) return true;
  const name = hostNameOf(header);
  if (name === undefined) return false;
  if (isIPv4(name) || name.startsWith('[')) return true;
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  return hosts.names.includes(name);
};

const HEADERS: Readonly<Record<string, string>> = {
  'Cache-Control': 'no-store',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
};

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] ?? char);

/** At most 100 characters of an untrusted header, for the page and the log. */
const shown = (header: string): string => (header.length > 100 ? `${header.slice(0, 100)}…` : header);

/**
 * Refuses (403, before anything of the admin UI runs) a request to `/settings` under a host name
 * that isAdminHost does not take: no page, no login nonce, no login attempt counted against the
 * client — a rebinding page cannot spend the admin's login limit, nor guess the password.
 */
export const adminHostGuard =
  (hosts: AdminHosts, logger: Logger): Middleware =>
  async (ctx: Context, next) => {
    if (ctx.path !== '/settings' && !ctx.path.startsWith('/settings/')) return next();
    const header = ctx.get('host');
    if (isAdminHost(header, hosts)) return next();
    ctx.state.routeName = 'settings';
    logger.warn({ reqId: ctx.state.requestId as string | undefined, path: ctx.path, host: shown(header) }, 'admin request under another host name refused');
    ctx.set(HEADERS);
    ctx.status = 403;
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Refused · Agent Gateway</title></head>
<body><main><h1>Refused</h1><p>The admin UI answers only under its own names: an IP address, <code>localhost</code>, the host of <code>PUBLIC_URL</code>, or a name listed in <code>ADMIN_HOSTS</code>. This request named the host "${escapeHtml(shown(header))}". If that is this service's name, add it to <code>ADMIN_HOSTS</code> (docs/admin-ui.md).</p></main></body></html>`;
  };
