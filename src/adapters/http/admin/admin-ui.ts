import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { LoginBusy } from '../../../application/auth/admin-authentication.js';
import { isDomainError } from '../../../domain/errors/domain-error.js';
import { adminSessionChallenge } from '../auth-challenge.js';
import { answerFor } from '../error-status.js';
import { NOTICE, seeOther, sendPage, signedIn, type AdminTools, type AdminUiDependencies } from './admin-http.js';
import {
  checkedForm,
  endSession,
  LOGIN_NONCE_COOKIE,
  loginNonceMatches,
  loginPage,
  readLoginForm,
  requireSession,
  SESSION_COOKIE,
  sessionToken,
  startSession,
} from './admin-session.js';
import { AdminViews } from './admin-views.js';
import { registerChatPages } from './chat-pages.js';
import { adminCookie, adminCookieName, setAdminCookie } from './admin-cookie.js';
import { clearFlash, type FlashCookie } from './flash.js';
import { registerJobPages } from './job-pages.js';
import { clearOldNewKeyCookie, registerKeyPages } from './key-pages.js';
import { loadStaticFiles } from './static-files.js';
import { registerStatusPages } from './status-pages.js';
import { registerTriggerPages } from './trigger-pages.js';
import { registerSchedulePages } from './schedule-pages.js';
import { registerDeliveryPages } from './delivery-pages.js';
import { registerApprovalPages } from './approval-pages.js';
import { formField } from '../middleware/form-body.js';

const BACK = { href: '/settings', label: 'Back to the admin pages' };

export type { AdminUiDependencies } from './admin-http.js';

/** Titles of the error pages, by status (by the one error table, see answerFor). */
const ERROR_TITLES: Readonly<Record<number, string>> = {
  400: 'Bad request',
  404: 'Not found',
  413: 'Form too large',
  415: 'Unsupported form',
  429: 'Too many attempts',
  500: 'Something went wrong',
  501: 'Not configured',
  503: 'Database unavailable',
};

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Cache-Control': 'no-store',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy':
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'self'; connect-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
};

/**
 * Why the last login was refused, for the login page after the redirect. Only a code travels
 * (no session signs it yet); the page shows our fixed text for it.
 */
const LOGIN_REFUSED: FlashCookie = { name: 'agw_login', path: '/settings/login' };
const REFUSALS: Readonly<Record<string, string>> = {
  unauthorized: 'Wrong password.',
  rate_limited: 'Too many failed logins; try again later.',
  busy: 'Too many logins at once; try again in a moment.',
};

/** The hosts the service answers as: Koa's (X-Forwarded-Host with TRUST_PROXY) and the Host header's. */
const ownHosts = (ctx: Context): string[] => [ctx.host, ctx.get('host')].filter((host) => host !== '');

/**
 * Whether a form POST comes from a page of another site, told by what the browser says of its
 * origin, never by the form (a page of another site can post a form to /settings/login, and five
 * wrong passwords lock the admin out). A browser that sends `Sec-Fetch-Site` (current ones do, but
 * only to secure origins: HTTPS and localhost, not plain HTTP under another name; a page cannot
 * remove it) is taken at its word: `same-origin` and `none` (typed, bookmarked) are ours,
 * anything else is refused — whatever Host a reverse proxy passes on, which need not be the name
 * the browser used. Without it, an `Origin` other than this service's (either scheme) is
 * refused; `Origin: null` is not (the admin pages' `Referrer-Policy: no-referrer` makes a browser
 * post them with it, and so does a page of another site with that policy), nor a request with
 * neither header (curl, old clients). What this lets through is held by the forms themselves:
 * every signed-in form needs the session's CSRF token (and its SameSite=Strict cookie), the login
 * the nonce of its own SameSite=Strict cookie (loginNonce).
 */
export const crossOriginPost = (ctx: Context): boolean => {
  const site = ctx.get('sec-fetch-site').toLowerCase();
  if (site !== '') return site !== 'same-origin' && site !== 'none';
  const origin = ctx.get('origin');
  if (origin === '' || origin === 'null') return false;
  let given: URL;
  try {
    given = new URL(origin);
  } catch {
    return true;
  }
  if (given.protocol !== 'http:' && given.protocol !== 'https:') return true;
  if (origin.toLowerCase() !== given.origin) return true;
  return !ownHosts(ctx).some((host) => {
    try {
      return new URL(`${given.protocol}//${host}`).host === given.host;
    } catch {
      return false;
    }
  });
};

/**
 * The answer to a form that did not come from this admin page: told by its origin
 * (crossOriginPost), or, for the login, by a nonce that does not match the browser's cookie.
 */
const refuseForeignForm = (ctx: Context, tools: AdminTools, by: 'origin' | 'login nonce'): void => {
  tools.deps.logger.warn(
    { reqId: ctx.state.requestId as string | undefined, path: ctx.path, by },
    by === 'origin' ? 'admin form from another site refused' : 'admin login without the nonce of its page refused',
  );
  // The nonce is missing far more often from a script than from an attack: it is told what to send.
  const message =
    by === 'origin'
      ? 'The form was not sent from this admin page (its origin is another site). Open the admin page and try again.'
      : `The login form's nonce is missing or does not match its cookie (${adminCookieName(ctx, LOGIN_NONCE_COOKIE)}): load /settings/login first and send its form. ` +
        'A script keeps the cookie that page sets and posts its nonce field with the password (see docs/admin-ui.md).';
  sendPage(ctx, 403, tools.views.page('error', { title: 'Refused' }, { message, back: BACK }));
};

/** The login and its limit: the only pages besides the closed one that answer without a session. */
const publicRoutes = (tools: AdminTools): Router => {
  const router = new Router();
  const { auth } = tools.deps;
  router.get('/settings/login', (ctx) => {
    const code = adminCookie(ctx, LOGIN_REFUSED);
    if (code !== undefined) clearFlash(ctx, LOGIN_REFUSED);
    const error = code !== undefined && Object.hasOwn(REFUSALS, code) ? REFUSALS[code] : undefined;
    sendPage(ctx, 200, loginPage(ctx, tools.views, error));
  });
  router.post('/settings/login', async (ctx) => {
    const form = await readLoginForm(ctx);
    // Before the password is checked or counted: only the login page's own form has the nonce
    // of the browser's cookie (see LOGIN_NONCE_COOKIE).
    if (!loginNonceMatches(ctx, form)) return refuseForeignForm(ctx, tools, 'login nonce');
    try {
      startSession(ctx, await auth.login(formField(form, 'password') ?? '', ctx.ip));
      seeOther(ctx, '/settings/keys');
    } catch (error) {
      if (!isDomainError(error) || !Object.hasOwn(REFUSALS, error.code)) throw error;
      // Too many logins at once (LoginBusy) has its own text: it was not counted against the client.
      const reason = error instanceof LoginBusy ? 'busy' : error.code;
      // Refused (wrong password, or the limit): back to the form with the reason, so that a
      // reload does not send the password again (it would count as another attempt).
      setAdminCookie(ctx, LOGIN_REFUSED, reason, { maxAge: 120_000 });
      // The answer is a 303 either way: the request's log line does not tell a refusal.
      tools.deps.logger.warn({ reqId: ctx.state.requestId as string | undefined, reason }, 'admin login refused');
      seeOther(ctx, '/settings/login');
    }
  });
  return router;
};

/** Every page and action of a signed-in admin. */
const sessionRoutes = (tools: AdminTools): Router => {
  const router = new Router();
  const files = loadStaticFiles();
  router.get('/settings', (ctx) => seeOther(ctx, '/settings/keys'));
  router.get('/settings/static/:file', (ctx) => {
    const file = files.get(String(ctx.params.file));
    if (file === undefined)
      return sendPage(
        ctx,
        404,
        tools.views.page('error', { title: 'Not found', csrf: signedIn(ctx).session.csrfToken }, { message: 'No such file.', back: BACK }),
      );
    ctx.type = file.type;
    ctx.body = file.body;
  });
  router.post('/settings/logout', tools.form, async (ctx) => {
    await tools.deps.auth.logout(sessionToken(ctx));
    endSession(ctx);
    clearFlash(ctx, NOTICE);
    clearOldNewKeyCookie(ctx);
    seeOther(ctx, '/settings/login');
  });
  registerKeyPages(router, tools);
  registerTriggerPages(router, tools);
  registerSchedulePages(router, tools);
  registerDeliveryPages(router, tools);
  registerApprovalPages(router, tools);
  registerJobPages(router, tools);
  registerStatusPages(router, tools);
  registerChatPages(router, tools);
  return router;
};

/** The methods a path answers to in any of the routers; empty when no route has the path. */
const allowedMethods = (routers: readonly Router[], ctx: Context): string[] => {
  const methods = new Set<string>();
  for (const router of routers) for (const layer of router.match(ctx.path, ctx.method).path) for (const method of layer.methods) methods.add(method);
  return [...methods];
};

/**
 * The admin UI at /settings: closed until an admin password exists, then nothing of it —
 * pages, static files, actions — without a session. One @koa/router handler per page and
 * action; eta templates escape every value. Sessions are HttpOnly, SameSite=Strict cookies
 * (Secure over HTTPS); every form carries the session's CSRF token and ends in a redirect
 * (Post/Redirect/Get), but the one that creates an API key, answered with the page that shows
 * the key once (key-pages.ts); logins are limited per client (AdminAuthentication). A POST the
 * browser says comes from another site (crossOriginPost) is refused with 403 before anything
 * else, the login included, and so is a login without its form's nonce (loginNonce), so no
 * page can spend the login limit. Every failure — a
 * malformed path or form, a form too large or of another type, an unknown page or method — is
 * an admin page with the status of the one error table.
 */
export const adminUi = (deps: AdminUiDependencies): Middleware => {
  const views = new AdminViews();
  const tools: AdminTools = { deps, views, form: checkedForm(deps.auth, views) };
  const open = publicRoutes(tools);
  const signed = sessionRoutes(tools);
  const openRoutes = open.routes();
  const signedRoutes = signed.routes();
  const guard = requireSession(deps.auth, views);

  const dispatch = async (ctx: Context): Promise<void> => {
    if (!(await deps.auth.isSetUp())) {
      return sendPage(ctx, 503, views.page('closed', { title: 'Admin UI closed' }));
    }
    // Before any route: a login from another site is neither checked nor counted against the
    // login limit, and no form of a session is read.
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD' && crossOriginPost(ctx)) return refuseForeignForm(ctx, tools, 'origin');
    await openRoutes(ctx as Parameters<typeof openRoutes>[0], async () => {
      const allowed = allowedMethods([open, signed], ctx);
      if (allowed.length > 0 && !allowed.includes(ctx.method)) {
        ctx.set('Allow', allowed.join(', '));
        return sendPage(ctx, 405, views.page('error', { title: 'Not allowed' }, { message: `${ctx.method} is not allowed here.`, back: BACK }));
      }
      await guard(ctx, async () => {
        await signedRoutes(ctx as Parameters<typeof signedRoutes>[0], async () => {
          sendPage(
            ctx,
            404,
            views.page('error', { title: 'Not found', csrf: signedIn(ctx).session.csrfToken }, { message: 'There is no such page.', back: BACK }),
          );
        });
      });
    });
  };

  return async (ctx, next) => {
    if (ctx.path !== '/settings' && !ctx.path.startsWith('/settings/')) return next();
    ctx.state.routeName = 'settings';
    ctx.set(SECURITY_HEADERS);
    try {
      await dispatch(ctx);
    } catch (error) {
      const answer = answerFor(error);
      if (answer.logged !== undefined) ctx.state.error = answer.logged;
      // The database unavailable (503): the browser is told when to try again, as the API's callers are.
      if (answer.retryAfterSeconds !== undefined) ctx.set('Retry-After', String(answer.retryAfterSeconds));
      sendPage(ctx, answer.status, views.page('error', { title: ERROR_TITLES[answer.status] ?? 'Error' }, { message: answer.message, back: BACK }));
    }
    // Every 401 (a form or an htmx request without a live session) names how to authenticate
    // (RFC 9110 §11.6.1): the session cookie of the login form. A page is redirected to it instead.
    if (ctx.status === 401) ctx.set('WWW-Authenticate', adminSessionChallenge(adminCookieName(ctx, SESSION_COOKIE)));
  };
};
