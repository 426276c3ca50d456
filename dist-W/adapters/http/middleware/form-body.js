import bodyParser from 'koa-bodyparser';
import { DomainError } from '../../../domain/errors/domain-error.js';
import { bodyFailure } from '../error-status.js';
import { hasBody, prepareBodyStream } from './body-stream.js';
/** A field's text (its first when sent more than once, as URLSearchParams.get). */
export const formField = (form, name) => {
    const value = Object.hasOwn(form, name) ? form[name] : undefined;
    return typeof value === 'string' ? value : value?.[0];
};
const parsed = () => Promise.resolve();
/**
 * Parses an `application/x-www-form-urlencoded` body with koa-bodyparser into a flat Form in
 * `ctx.request.body` (no `a[b]` or `a.b` nesting: field names are taken as they are). Another
 * content type is a 415; a body over `limit` bytes a 413, also after decompression; a corrupt
 * or cut-off body a 400. A request without a body gets an empty form.
 */
export const formBody = (limit) => {
    const parse = bodyParser({
        enableTypes: ['form'],
        formLimit: String(limit),
        // co-body hands these to qs: flat fields, as a browser sends them.
        ...{ queryString: { allowDots: false, depth: 0 } },
    });
    return async (ctx, next) => {
        if (!hasBody(ctx.req.headers)) {
            ctx.request.body = {};
            return next();
        }
        if (!ctx.request.is('application/x-www-form-urlencoded')) {
            throw new DomainError('unsupported_media_type', 'Content-Type must be application/x-www-form-urlencoded');
        }
        prepareBodyStream(ctx.req);
        try {
            await parse(ctx, parsed);
        }
        catch (error) {
            throw bodyFailure(error, 'form');
        }
        return next();
    };
};
//# sourceMappingURL=form-body.js.map