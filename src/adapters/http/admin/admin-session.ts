import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import type { AdminAuthentication, StartedSession } from '../../../application/auth/admin-authentication.js';
import { DomainError } from '../../../domain/errors/domain-error.js';
import { shownInput } from '../../../domain/errors/shown-input.js';
import type { AdminSession } from '../../../ports/admin-store.js';
import { formBody, formField, type Form } from '../middleware/form-body.js';
import { adminCookie, clearAdminCookie, setAdminCookie, type AdminCookie } from './admin-cookie.js';
import type { AdminViews } from './admin-views.js';

/**
 * The session cookie: HttpOnly, SameSite=Strict; over plain HTTP `agw_session` limited to
 * /settings, over HTTPS `__Host-agw_session`, Secure, on `/` (setAdminCookie).
 */
export const SESSION_COOKIE: AdminCookie = { name: 'agw_session', path: '/settings' };

/** Admin forms are small: at most this many bytes, also after decompression (413 beyond). */
export const FORM_LIMIT = 16 * 1024;

export const sessionToken = (ctx: Context): string | undefined => adminCookie(ctx, SESSION_COOKIE);

/**
 * The login form's nonce: a random value in an HttpOnly, SameSite=Strict cookie (over plain
 * HTTP limited to /settings, over HTTPS `__Host-`, Secure, on `/`; ending with the browser session), also in a hidden field of the
 * login form. A login whose field does not match the cookie is refused before its password is
 * checked or counted: a page of another site can neither read the value nor get the cookie sent,
 * whatever the browser says (or does not say: no Sec-Fetch-Site over plain HTTP, `Origin: null`)
 * of the form's origin.
 */
export const LOGIN_NONCE_COOKIE: AdminCookie = { name: 'agw_login_nonce', path: '/settings' };
const NONCE = /^[\w-]{43}$/;

/** The nonce for a login form: the browser's own when it has one, else a new one, set as its cookie. */
export const loginNonce = (ctx: Context): string => {
  const current = adminCookie(ctx, LOGIN_NONCE_COOKIE);
  if (current !== undefined && NONCE.test(current)) return current;
  const nonce = randomBytes(32).toString('base64url');
  setAdminCookie(ctx, LOGIN_NONCE_COOKIE, nonce);
  return nonce;
};

/** Whether a login form's `nonce` field is the one of the browser's cookie (in constant time). */
export const loginNonceMatches = (ctx: Context, form: Form): boolean => {
  const cookie = adminCookie(ctx, LOGIN_NONCE_COOKIE);
  const given = formField(form, 'nonce');
  if (cookie === undefined || !NONCE.test(cookie) || given === undefined) return false;
  const [a, b] = [Buffer.from(cookie), Buffer.from(given)];
  return a.length === b.length && timingSafeEqual(a, b);
};

/** The login page, with its nonce (set as a cookie when the browser has none). */
export const loginPage = (ctx: Context, views: AdminViews, error?: string): string =>
  views.page('login', { title: 'Log in' }, { error, nonce: loginNonce(ctx) });

export const startSession = (ctx: Context, started: StartedSession): void => {
  setAdminCookie(ctx, SESSION_COOKIE, started.token, { expires: started.session.expiresAt });
};

export const endSession = (ctx: Context): void => {
  clearAdminCookie(ctx, SESSION_COOKIE);
};

const parseForm = formBody(FORM_LIMIT);

/** The request's form (koa-bodyparser): 413 over FORM_LIMIT, 415 for another content type, 400 when corrupt. */
export const readForm = async (ctx: Context): Promise<Form> => {
  await parseForm(ctx, () => Promise.resolve());
  return ctx.request.body as Form;
};

/**
 * The login's form, as readForm reads it, but a compressed one (a `Content-Encoding` other than
 * `identity`) is refused with a 415 before it is read: the login is read before anyone is signed
 * in, and about a hundred bytes of gzip inflating to FORM_LIMIT, never finished, held 16 KiB per
 * connection until the request timeout. A browser never compresses a form.
 */
export const readLoginForm = (ctx: Context): Promise<Form> => {
  const coding = ctx.req.headers['content-encoding']?.trim().toLowerCase();
  if (coding !== undefined && coding !== '' && coding !== 'identity') {
    throw new DomainError(
      'unsupported_media_type',
      `The login form takes no compressed body (Content-Encoding ${shownInput(coding)}): send it uncompressed, as a browser does`,
    );
  }
  return readForm(ctx);
};

/**
 * Lets only signed-in requests through, with `ctx.state.admin` set. Without a session a page
 * (GET) is redirected to the login; a live-part request of htmx is told to go there
 * (HX-Redirect, 401); anything else gets 401 and the login form.
 */
export const requireSession =
  (auth: AdminAuthentication, views: AdminViews): Middleware =>
  async (ctx, next) => {
    const token = sessionToken(ctx);
    const session = await auth.session(token);
    if (session !== null && token !== undefined) {
      ctx.state.admin = { session, token };
      return next();
    }
    withoutSession(ctx, views);
  };

/** The answer to a request without a (live) session; see requireSession. */
const withoutSession = (ctx: Context, views: AdminViews): void => {
  if (ctx.get('HX-Request') === 'true') {
    ctx.set('HX-Redirect', '/settings/login');
    ctx.status = 401;
    ctx.body = '';
    return;
  }
  if (ctx.method === 'GET' || ctx.method === 'HEAD') {
    ctx.status = 303;
    ctx.redirect('/settings/login');
    return;
  }
  ctx.status = 401;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = loginPage(ctx, views, 'Your session has ended; log in again.');
};

/**
 * Parses a signed-in form and refuses it (403) unless it carries the session's CSRF token.
 * The session is looked up again once the body is in: one that ended while the body was on
 * its way (logout, a new password, its expiry) takes no form — the answer is requireSession's
 * to a request without a session, and nothing is done.
 */
export const checkedForm =
  (auth: AdminAuthentication, views: AdminViews): Middleware =>
  async (ctx, next) => {
    const form = await readForm(ctx);
    const { session: before, token } = ctx.state.admin as { session: AdminSession; token: string };
    const session = await auth.session(token);
    if (session === null || !auth.csrfMatches(session, before.csrfToken)) return withoutSession(ctx, views);
    ctx.state.admin = { session, token };
    if (!auth.csrfMatches(session, formField(form, 'csrf'))) {
      ctx.status = 403;
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = views.page(
        'error',
        { title: 'Refused', csrf: session.csrfToken },
        {
          message: 'The form was not sent from this admin page (CSRF check failed). Reload the page and try again.',
          back: { href: '/settings', label: 'Back to the admin pages' },
        },
      );
      return;
    }
    return next();
  };
