import type { Middleware } from 'koa';
import { isDomainError } from '../../../domain/errors/DomainError.js';
import { STATUS_BY_CODE } from '../errorStatus.js';

/**
 * Turns every failure into `{error}`. Domain errors map through STATUS_BY_CODE and
 * keep their message; anything else is a 500 whose details go to the log line only.
 */
export const errorResponder = (): Middleware => async (ctx, next) => {
  try {
    await next();
  } catch (error) {
    if (isDomainError(error)) {
      ctx.status = STATUS_BY_CODE[error.code];
      ctx.body = { error: error.message };
      if (error.code === 'internal') ctx.state.error = error.cause ?? error;
      return;
    }
    ctx.status = 500;
    ctx.body = { error: 'Internal server error' };
    ctx.state.error = error;
  }
};
