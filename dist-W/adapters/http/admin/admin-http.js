import { DomainError } from '../../../domain/errors/domain-error.js';
import { formField } from '../middleware/form-body.js';
import { takeFlash } from './flash.js';
/** Notices and errors for the next page of this session (Post/Redirect/Get). */
export const NOTICE = { name: 'agw_flash', path: '/settings' };
export const signedIn = (ctx) => ctx.state.admin;
/** The parsed form of a POST (see the `form` tool). */
export const formOf = (ctx) => ctx.request.body;
export const field = (ctx, name) => formField(formOf(ctx), name) ?? '';
export const sendPage = (ctx, status, html) => {
    ctx.status = status;
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = html;
};
/** Post/Redirect/Get: every form that was taken ends in a 303 to the page that shows the outcome. */
export const seeOther = (ctx, location) => {
    ctx.status = 303;
    ctx.redirect(location);
};
/** The frame of a signed-in page, with the notice left by the previous form, if any. */
export const frame = (ctx, title, section, extra = {}) => {
    const { session } = signedIn(ctx);
    const flash = takeFlash(ctx, NOTICE, session.csrfToken);
    const valid = flash !== undefined && (flash.kind === 'notice' || flash.kind === 'error') && typeof flash.text === 'string';
    return { title, section, csrf: session.csrfToken, ...(valid ? { flash } : {}), ...extra };
};
/** Renders a signed-in page with status 200. */
export const showPage = (ctx, tools, view, title, section, model = {}, extra = {}) => sendPage(ctx, 200, tools.views.page(view, frame(ctx, title, section, extra), { ...model, csrf: signedIn(ctx).session.csrfToken }));
/**
 * The `index`-th parameter of the matched route, percent-decoded from the raw path (the router
 * would keep a malformed encoding as it is): a malformed one is the caller's mistake (400).
 */
export const pathParameter = (ctx, index) => {
    const raw = ctx.captures?.[index] ?? '';
    try {
        return decodeURIComponent(raw);
    }
    catch {
        throw new DomainError('invalid_input', 'The address has a malformed percent-encoding');
    }
};
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A UUID path parameter in lower case, or undefined when it is none (the page then answers 404). */
export const uuidParameter = (ctx, index) => {
    const raw = ctx.captures?.[index] ?? '';
    return UUID.test(raw) ? raw.toLowerCase() : undefined;
};
/** A 404 page inside the signed-in frame. */
export const notFound = (ctx, tools, what, back) => sendPage(ctx, 404, tools.views.page('error', frame(ctx, 'Not found', undefined), { message: what, back }));
//# sourceMappingURL=admin-http.js.map