/** A client's current window of login attempts. */
export interface LoginWindow {
  /** Attempts counted in the window (at least 1). */
  readonly attempts: number;
  /** When the window ends: the first attempt from then on starts a new one. */
  readonly endsAt: Date;
}

/**
 * Login attempts counted per client in fixed windows, in one place every replica shares, so a
 * limit holds under concurrency and across replicas. Clients are opaque keys (the caller
 * decides what identifies one). A window starts at the first attempt after the client's
 * previous window (`windowMs` long) ended.
 */
export interface LoginAttempts {
  /**
   * The client's window open at `now`, or null when it has none (never counted, cleared, or
   * its window ended by `now`). Only reads: a refused attempt costs the store no write.
   */
  current(client: string, now: Date, windowMs: number): Promise<LoginWindow | null>;

  /**
   * Counts one attempt of `client` made at `now` if fewer than `max` were counted in its
   * current window (a window that ended counts as none: the attempt starts a new one), and
   * returns the window with it counted (`attempts` is the attempt's number); returns null,
   * changing nothing, when `max` were counted already. Atomic: of attempts made at the same
   * moment, on any replica, at most `max` per window are counted, with distinct numbers.
   * Does not delete other clients' ended windows (see deleteEnded).
   */
  take(client: string, now: Date, windowMs: number, max: number): Promise<LoginWindow | null>;

  /** Forgets the client's attempts (a successful login). Idempotent. */
  clear(client: string): Promise<void>;

  /**
   * Retention: deletes up to `limit` windows that ended by `now` (started at or before
   * `now - windowMs`), oldest first, skipping any a concurrent count holds; returns how many
   * it deleted (fewer than `limit`: none is left, but for those skipped).
   */
  deleteEnded(now: Date, windowMs: number, limit: number): Promise<number>;
}
