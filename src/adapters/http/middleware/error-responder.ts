import type { Context } from 'koa';
import { challengeOf } from '../auth-challenge.js';
import { answerFor } from '../error-status.js';

/**
 * Turns a failure into `{error}` by the one error table (see answerFor): 4xx keep their message,
 * a 500 says `Internal server error` (or SPEC 7's fixed text) and its detail goes to the
 * request's log line only. A 401 of `/api` carries `WWW-Authenticate` (auth-challenge.ts). The
 * request log answers every failure with it; a route answers its handler's failure with it,
 * close to where it is thrown.
 */
export const respondWithError = (ctx: Context, error: unknown): void => {
  const answer = answerFor(error);
  ctx.status = answer.status;
  // A 401 names how to authenticate (RFC 9110 11.6.1): the API key, or the platform's secret.
  if (answer.status === 401) {
    const challenge = challengeOf(ctx);
    if (challenge !== undefined) ctx.set('www-authenticate', challenge);
  }
  // A 503 (the database unavailable, a full job queue) says when to try again.
  if (answer.retryAfterSeconds !== undefined) ctx.set('retry-after', String(answer.retryAfterSeconds));
  ctx.body = { error: answer.message };
  if (answer.logged !== undefined) ctx.state.error = answer.logged;
};
