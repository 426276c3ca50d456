/**
 * Thrown by a runner's `poll` when the platform it asks says its rate limit is reached (GitHub: a
 * 403 or 429 with `x-ratelimit-remaining: 0` or `retry-after`): nothing more should be asked of it
 * before `until` (GitHub's `x-ratelimit-reset`, or now plus its `retry-after`). The job polled
 * has not been answered: it is asked about again after `until`.
 */
export class RateLimitReached extends Error {
  constructor(
    readonly until: Date,
    message: string,
    options?: { readonly cause?: unknown },
  ) {
    super(message, options);
    this.name = 'RateLimitReached';
  }
}
