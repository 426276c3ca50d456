import type { Context, Middleware } from 'koa';
import type { AuthenticateApiKey } from '../../../application/auth/authenticate-api-key.js';

/** The `x-api-key` header as presented: undefined when missing or sent more than once. */
const presentedKey = (ctx: Context): string | undefined => {
  const header = ctx.req.headers['x-api-key'];
  return Array.isArray(header) ? undefined : header;
};

/** SPEC 5.2: the `x-api-key` header must match a stored key; the key id goes to the log line. */
export const apiKeyAuth =
  (authenticate: AuthenticateApiKey): Middleware =>
  (ctx, next) => {
    const presented = presentedKey(ctx);
    // A key the repository knows is checked without a promise; any other is looked up.
    const known = authenticate.known(presented);
    if (known !== undefined) {
      ctx.state.apiKeyId = known.id;
      return next();
    }
    return authenticate.execute(presented).then((key) => {
      ctx.state.apiKeyId = key.id;
      return next();
    });
  };

/**
 * The key checked again once the body has been read, before triggers fire and the handler runs:
 * a key revoked while its request's body was still arriving (a slow upload) is refused with the
 * same 401 as the first check, and its request fires nothing. In the usual case the repository
 * still knows the key (its cache, kept current by the database's change notifications and by
 * this process's own revocations), so this costs a digest and no query, no promise; a key it
 * does not know (notifications down, or just revoked) is looked up as the first check does.
 */
export const apiKeyRecheck =
  (authenticate: AuthenticateApiKey): Middleware =>
  (ctx, next) => {
    const presented = presentedKey(ctx);
    if (authenticate.known(presented, false) !== undefined) return next();
    return authenticate.execute(presented, false).then(() => next());
  };
