import type { Middleware } from 'koa';
import type { AuthenticateApiKey } from '../../../application/auth/authenticate-api-key.js';

/** SPEC 5.2: the `x-api-key` header must match a stored key; the key id goes to the log line. */
export const apiKeyAuth =
  (authenticate: AuthenticateApiKey): Middleware =>
  async (ctx, next) => {
    const header = ctx.req.headers['x-api-key'];
    const key = await authenticate.execute(Array.isArray(header) ? undefined : header);
    ctx.state.apiKeyId = key.id;
    return next();
  };
