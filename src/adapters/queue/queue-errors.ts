import type { Logger } from '../../ports/logger.js';
import { DatabaseUnavailable, unavailableOr } from '../shared/database-unavailable.js';

/** A database that stays unreachable is still reported this often (with how many errors were left out). */
export const UNREACHABLE_REPEAT_MS = 10 * 60_000;

/**
 * Whether pg-boss's `error` says that the database cannot be reached or ended the session. pg-boss
 * emits its pool's and its loops' errors as they are, its workers' and its maintenance's as plain
 * copies (`{...error, message, stack}`), which keep pg's `code`.
 */
const lostConnection = (error: unknown): boolean => {
  if (error instanceof Error) return unavailableOr(error) instanceof DatabaseUnavailable;
  if (typeof error !== 'object' || error === null) return false;
  const { message, code } = error as { message?: unknown; code?: unknown };
  return unavailableOr(Object.assign(new Error(String(message ?? '')), { code })) instanceof DatabaseUnavailable;
};

/**
 * Logs pg-boss's `error` events. While the database cannot be reached, every one of pg-boss's
 * loops fails at each of its intervals (its flow poll every few seconds, its supervision, its
 * instance heartbeat) and each pooled connection cut reports once: about a thousand identical
 * error lines an hour of an outage. So the first lost connection is logged at once, and further
 * ones only every `repeatMs` (saying how many were left out) until `reachable` is called — a
 * statement of the queue succeeded —, when the next outage is logged at once again. Other errors
 * are logged as they come.
 */
export class QueueErrors {
  /** Set while the database is unreachable: when the last one was logged, how many were left out since. */
  #down: { loggedAt: number; leftOut: number } | undefined;

  /** `now`: milliseconds on a monotonic clock. */
  constructor(
    private readonly logger: Logger,
    private readonly repeatMs: number = UNREACHABLE_REPEAT_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  report(error: unknown): void {
    if (!lostConnection(error)) {
      this.logger.error({ err: error }, 'task queue error');
      return;
    }
    const now = this.now();
    if (this.#down !== undefined && now - this.#down.loggedAt < this.repeatMs) {
      this.#down.leftOut++;
      return;
    }
    const leftOut = this.#down?.leftOut ?? 0;
    this.#down = { loggedAt: now, leftOut: 0 };
    this.logger.error(
      leftOut > 0 ? { err: error, repeatsLeftOut: leftOut } : { err: error },
      `task queue error: the database cannot be reached; further such errors are logged once every ${Math.round(this.repeatMs / 60_000)} minutes until it is reachable again`,
    );
  }

  /**
   * A statement of the queue succeeded: the next lost connection is logged at once. Returns how
   * many were left out since the last one logged, when the database was unreachable (else undefined).
   */
  reachable(): number | undefined {
    const down = this.#down;
    this.#down = undefined;
    return down?.leftOut;
  }
}
