import type { Context } from 'koa';

/**
 * 405 for a path that exists but not with this method: `Allow` lists the methods it takes and the
 * body names the refused one, as every part of the HTTP app answers (the /api router, /metrics,
 * the probes).
 */
export const answerMethodNotAllowed = (ctx: Context, allowed: readonly string[]): void => {
  ctx.set('Allow', allowed.join(', '));
  ctx.status = 405;
  ctx.body = { error: `Method ${ctx.method} is not allowed on ${ctx.path}` };
};
