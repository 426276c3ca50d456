import type { Context, Middleware } from 'koa';
import type { AuthenticateApiKey } from '../../../application/auth/authenticate-api-key.js';
import type { ApiKeyRecord } from '../../../domain/auth/api-key-record.js';

/** The `x-api-key` header as presented: undefined when missing or sent more than once. */
const presentedKey = (ctx: Context): string | undefined => {
  const header = ctx.req.headers['x-api-key'];
  return Array.isArray(header) ? undefined : header;
};

/**
 * The record of the key the first check accepted, for apiKeyRecheck: on ctx.state under a symbol
 * (no log, no JSON, no handler sees it: it holds the key's digest).
 */
const ACCEPTED = Symbol('accepted API key');

type Accepted = { [ACCEPTED]?: ApiKeyRecord };

/** SPEC 5.2: the `x-api-key` header must match a stored key; the key id goes to the log line. */
export const apiKeyAuth =
  (authenticate: AuthenticateApiKey): Middleware =>
  (ctx, next) => {
    const presented = presentedKey(ctx);
    // A key the repository knows is checked without a promise; any other is looked up.
    const known = authenticate.acceptKnown(presented);
    if (known !== undefined) {
      ctx.state.apiKeyId = known.id;
      (ctx.state as Accepted)[ACCEPTED] = known;
      return next();
    }
    return authenticate.accept(presented).then((key) => {
      ctx.state.apiKeyId = key.id;
      (ctx.state as Accepted)[ACCEPTED] = key;
      return next();
    });
  };

/**
 * The key checked again once the body has been read, before triggers fire and the handler runs:
 * a key revoked while its request's body was still arriving (a slow upload) is refused with the
 * same 401 as the first check, and its request fires nothing. The first check's record is
 * checked, not the header: in the usual case the repository still knows it (its cache, kept
 * current by the database's change notifications and by this process's own revocations), so
 * this costs a map lookup — no digest, no query, no promise. One it no longer knows (just
 * revoked, cache cleared, notifications down) is looked up in the store.
 */
export const apiKeyRecheck =
  (authenticate: AuthenticateApiKey): Middleware =>
  (ctx, next) => {
    const accepted = (ctx.state as Accepted)[ACCEPTED];
    // Without a first check in this chain (none should be), the header is checked in full.
    if (accepted === undefined) return authenticate.execute(presentedKey(ctx), false).then(() => next());
    if (authenticate.stillAccepted(accepted)) return next();
    return authenticate.stillStored(accepted).then(() => next());
  };
