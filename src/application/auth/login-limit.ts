import { DomainError } from '../../domain/errors/domain-error.js';
import type { LoginAttempts } from '../../ports/login-attempts.js';

/** Login attempts allowed per client within the window (a successful one starts over); later ones are refused until it ends. */
export const MAX_FAILURES = 5;
export const FAILURE_WINDOW_MS = 15 * 60_000;

export interface LoginLimitOptions {
  /** Clients remembered as refused until their window ends, in this process; the oldest is forgotten first. */
  readonly refusedClients: number;
  /** Ended windows are deleted (a batch of this many) once per this many counted attempts; the retention sweep deletes the rest. */
  readonly cleanupEvery: number;
}

const limited = (): DomainError => new DomainError('rate_limited', 'Too many failed logins; try again later');

/**
 * The per-client login limit, decided in the store every replica shares (LoginAttempts), where a
 * refused attempt writes nothing: admit reads the client's window (a client refused once is
 * remembered here until its window ends, so that it costs not even a read); count then counts
 * an attempt under the limit by the store's atomic conditional take, so however many arrive at
 * once, on whichever replica, at most MAX_FAILURES per window are counted.
 */
export class LoginLimit {
  /** Clients over the limit (by key) → when their window ends, in ms; in insertion order, for eviction. */
  readonly #refusedUntil = new Map<string, number>();
  /**
   * Attempts of a client under way here (admitted, not settled), per client: a burst from one
   * client is refused at admit but for the attempts it leaves, instead of all going on to be
   * refused by the count. (Those already counted are counted twice until they settle:
   * concurrent attempts of one client may be refused a little early, never late.)
   */
  readonly #pending = new Map<string, number>();
  #counted = 0;

  constructor(
    private readonly attempts: LoginAttempts,
    private readonly options: LoginLimitOptions,
  ) {}

  /**
   * Refuses, without writing anything, a client over the limit: known here, or by its window as
   * stored, or by its attempts under way; else the attempt is under way until settle.
   * @throws DomainError rate_limited
   */
  async admit(client: string, now: Date): Promise<void> {
    const until = this.#refusedUntil.get(client);
    if (until !== undefined) {
      if (now.getTime() < until) throw limited();
      this.#refusedUntil.delete(client);
    }
    const window = await this.attempts.current(client, now, FAILURE_WINDOW_MS);
    if (window !== null && window.attempts >= MAX_FAILURES) {
      this.#refuseUntil(client, window.endsAt.getTime());
      throw limited();
    }
    const pending = this.#pending.get(client) ?? 0;
    if ((window?.attempts ?? 0) + pending >= MAX_FAILURES) throw limited();
    // In the same step as the check, or a burst would pass it whole.
    this.#pending.set(client, pending + 1);
  }

  /**
   * Counts an admitted attempt, unless another replica (or a read made here before a count)
   * took the last one first.
   * @throws DomainError rate_limited
   */
  async count(client: string, now: Date): Promise<void> {
    if ((await this.attempts.take(client, now, FAILURE_WINDOW_MS, MAX_FAILURES)) === null) throw limited();
    if (++this.#counted % this.options.cleanupEvery === 0) await this.attempts.deleteEnded(now, FAILURE_WINDOW_MS, this.options.cleanupEvery);
  }

  /** The admitted attempt has ended (counted or not). */
  settle(client: string): void {
    const left = (this.#pending.get(client) ?? 1) - 1;
    if (left > 0) this.#pending.set(client, left);
    else this.#pending.delete(client);
  }

  /** A successful login: the client's count starts over. */
  async clear(client: string): Promise<void> {
    await this.attempts.clear(client);
  }

  #refuseUntil(client: string, until: number): void {
    this.#refusedUntil.delete(client);
    this.#refusedUntil.set(client, until);
    if (this.#refusedUntil.size > this.options.refusedClients) {
      const oldest = this.#refusedUntil.keys().next().value;
      if (oldest !== undefined) this.#refusedUntil.delete(oldest);
    }
  }
}
