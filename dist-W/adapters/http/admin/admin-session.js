import { formBody, formField } from '../middleware/form-body.js';
/** The session cookie: HttpOnly, SameSite=Strict, limited to /settings, Secure over HTTPS. */
export const SESSION_COOKIE = 'agw_session';
/** Admin forms are small: at most this many bytes, also after decompression (413 beyond). */
export const FORM_LIMIT = 16 * 1024;
export const sessionToken = (ctx) => ctx.cookies.get(SESSION_COOKIE);
export const startSession = (ctx, started) => {
    ctx.cookies.set(SESSION_COOKIE, started.token, {
        httpOnly: true,
        sameSite: 'strict',
        secure: ctx.secure,
        path: '/settings',
        expires: started.session.expiresAt,
        overwrite: true,
    });
};
export const endSession = (ctx) => {
    ctx.cookies.set(SESSION_COOKIE, '', { httpOnly: true, sameSite: 'strict', secure: ctx.secure, path: '/settings', expires: new Date(0), overwrite: true });
};
const parseForm = formBody(FORM_LIMIT);
/** The request's form (koa-bodyparser): 413 over FORM_LIMIT, 415 for another content type, 400 when corrupt. */
export const readForm = async (ctx) => {
    await parseForm(ctx, () => Promise.resolve());
    return ctx.request.body;
};
/**
 * Lets only signed-in requests through, with `ctx.state.admin` set. Without a session a page
 * (GET) is redirected to the login; a live-part request of htmx is told to go there
 * (HX-Redirect, 401); anything else gets 401 and the login form.
 */
export const requireSession = (auth, views) => async (ctx, next) => {
    const token = sessionToken(ctx);
    const session = await auth.session(token);
    if (session !== null && token !== undefined) {
        ctx.state.admin = { session, token };
        return next();
    }
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
    ctx.body = views.page('login', { title: 'Log in' }, { error: 'Your session has ended; log in again.' });
};
/** Parses a signed-in form and refuses it (403) unless it carries the session's CSRF token. */
export const checkedForm = (auth, views) => async (ctx, next) => {
    const form = await readForm(ctx);
    const { session } = ctx.state.admin;
    if (!auth.csrfMatches(session, formField(form, 'csrf'))) {
        ctx.status = 403;
        ctx.type = 'text/html; charset=utf-8';
        ctx.body = views.page('error', { title: 'Refused', csrf: session.csrfToken }, {
            message: 'The form was not sent from this admin page (CSRF check failed). Reload the page and try again.',
            back: { href: '/settings', label: 'Back to the admin pages' },
        });
        return;
    }
    return next();
};
//# sourceMappingURL=admin-session.js.map