/**
 * Login attempts counted per client in fixed windows, in one place every replica shares, so a
 * limit holds under concurrency and across replicas. Clients are opaque keys (the caller
 * decides what identifies one).
 */
export interface LoginAttempts {
  /**
   * Counts one attempt of `client` made at `now` and returns its number within the client's
   * current window: 1 for the first attempt of a window. A window starts at the first attempt
   * after the previous window (`windowMs` long) ended. Atomic: attempts made at the same
   * moment, on any replica, get distinct numbers. Windows that ended are deleted as a side
   * effect, a bounded number per call, so the store holds about the clients of one window.
   */
  count(client: string, now: Date, windowMs: number): Promise<number>;

  /** Forgets the client's attempts (a successful login). Idempotent. */
  clear(client: string): Promise<void>;

  /**
   * Retention: deletes up to `limit` windows that ended by `now` (started at or before
   * `now - windowMs`), oldest first, skipping any a concurrent count holds; returns how many
   * it deleted (fewer than `limit`: none is left, but for those skipped).
   */
  deleteEnded(now: Date, windowMs: number, limit: number): Promise<number>;
}
