import type { Context, Middleware } from 'koa';
import bodyParser from 'koa-bodyparser';
import { DomainError } from '../../../domain/errors/domain-error.js';
import { bodyFailure } from '../error-status.js';
import { hasBody, keepMalformedBody, prepareBodyStream } from './body-stream.js';

/** A parsed form: each field's text, or its texts when it was sent more than once. */
export type Form = Readonly<Record<string, string | readonly string[] | undefined>>;

/** A field's text (its first when sent more than once, as URLSearchParams.get). */
export const formField = (form: Form, name: string): string | undefined => {
  const value = Object.hasOwn(form, name) ? form[name] : undefined;
  return typeof value === 'string' ? value : value?.[0];
};

const parsed = (): Promise<void> => Promise.resolve();

/**
 * Parses an `application/x-www-form-urlencoded` body with koa-bodyparser into a flat Form in
 * `ctx.request.body` (no `a[b]` or `a.b` nesting: field names are taken as they are). Another
 * content type is a 415; a body over `limit` bytes a 413, also after decompression; a corrupt
 * or cut-off body a 400. A request without a body gets an empty form.
 * `verifiedLater`: the route checks a signature over the raw body first (keepMalformedBody).
 */
export const formBody = (limit: number, { verifiedLater = false } = {}): Middleware => {
  const parse = bodyParser({
    enableTypes: ['form'],
    formLimit: String(limit),
    // co-body hands these to qs: flat fields, as a browser sends them.
    ...({ queryString: { allowDots: false, depth: 0 } } as object),
  });
  return async (ctx: Context, next) => {
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
    } catch (error) {
      const problem = bodyFailure(error, 'form');
      if (!(verifiedLater && keepMalformedBody(ctx, error, problem))) throw problem;
    }
    return next();
  };
};
