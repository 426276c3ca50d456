import { DomainError } from '../../domain/errors/domain-error.js';
import type { AdminSession, AdminStore } from '../../ports/admin-store.js';
import type { ApiKeyCrypto } from '../../ports/api-key-crypto.js';
import type { Clock } from '../../ports/clock.js';
import type { IdGenerator } from '../../ports/id-generator.js';
import type { LoginAttempts } from '../../ports/login-attempts.js';
import { loginClientOf } from '../../domain/auth/login-client.js';
import type { PasswordHasher } from '../../ports/password-hasher.js';
import { PasswordCheckSlots } from './password-check-slots.js';

export const MIN_PASSWORD_LENGTH = 12;
export const SESSION_HOURS = 12;
/** Login attempts allowed per client within the window (a successful one starts over); later ones are refused until it ends. */
export const MAX_FAILURES = 5;
export const FAILURE_WINDOW_MS = 15 * 60_000;

/** How the login limit runs; the defaults are the service's. */
export interface LoginLimits {
  /** Password checks (scrypt, on libuv's thread pool) at once, across all clients. */
  readonly concurrentChecks: number;
  /** Logins that may wait for a check; past them a login is refused at once (LoginBusy). */
  readonly waitingChecks: number;
  /** Clients remembered as refused until their window ends, in this process; the oldest is forgotten first. */
  readonly refusedClients: number;
  /** Ended windows are deleted (a batch of this many) once per this many counted attempts; the retention sweep deletes the rest. */
  readonly cleanupEvery: number;
  /** How long an existing password is taken to exist without asking the store again. */
  readonly setUpCacheMs: number;
}

export const LOGIN_LIMITS: LoginLimits = { concurrentChecks: 2, waitingChecks: 8, refusedClients: 10_000, cleanupEvery: 100, setUpCacheMs: 5_000 };

/** A login refused because too many are being checked at once (not counted against the client): try again in a moment. */
export class LoginBusy extends DomainError {
  constructor() {
    super('rate_limited', 'Too many logins at once; try again in a moment');
    this.name = 'LoginBusy';
  }
}

const limited = (): DomainError => new DomainError('rate_limited', 'Too many failed logins; try again later');

/** @throws DomainError invalid_input when `password` is too short to be set. */
export const checkNewPassword = (password: string): void => {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new DomainError('invalid_input', `The password must have at least ${MIN_PASSWORD_LENGTH} characters`);
  }
};

export interface StartedSession {
  /** The cookie value; only its digest is stored. */
  readonly token: string;
  readonly session: AdminSession;
}

/**
 * The admin UI's authentication: one admin password (slow hash), sessions by random token
 * (stored as digests, with a CSRF token each), login attempts limited per client.
 *
 * The limit is decided before the password is checked, in the database every replica shares
 * (LoginAttempts), and a refused attempt writes nothing: the client's window is read first
 * (and a client refused once is remembered in memory until its window ends, so that it costs
 * not even a read); an attempt under the limit is then counted by one atomic conditional write
 * that counts it only while the window holds fewer than MAX_FAILURES, so however many arrive
 * at once, on whichever replica, at most MAX_FAILURES per window reach the hash. A successful
 * login clears the client's count. Clients are kept as digests (their addresses are not stored).
 * Password checks are also limited across all clients (PasswordCheckSlots), before the attempt
 * is counted, so a login refused for that does not count against its client.
 */
export class AdminAuthentication {
  readonly #limits: LoginLimits;
  readonly #slots: PasswordCheckSlots;
  /** Clients over the limit (by digest) → when their window ends, in ms; in insertion order, for eviction. */
  readonly #refusedUntil = new Map<string, number>();
  /**
   * Attempts of a client under way here (past the read, not ended), per client: a burst from one
   * client is refused at the read but for the attempts it leaves, instead of all waiting for a
   * check to be refused by the count. (Those already counted are counted twice until they end:
   * concurrent attempts of one client may be refused a little early, never late.)
   */
  readonly #pending = new Map<string, number>();
  #counted = 0;
  #setUpUntil = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly store: AdminStore,
    private readonly attempts: LoginAttempts,
    private readonly hasher: PasswordHasher,
    private readonly crypto: ApiKeyCrypto,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    limits: Partial<LoginLimits> = {},
  ) {
    this.#limits = { ...LOGIN_LIMITS, ...limits };
    this.#slots = new PasswordCheckSlots(this.#limits.concurrentChecks, this.#limits.waitingChecks);
  }

  /**
   * Whether an admin password exists. A yes is kept for a few seconds (every /settings request
   * asks); a no is never kept, so a password set by another process counts at once. A password
   * is never removed by the service, only replaced; one deleted in the database counts within
   * those seconds.
   */
  async isSetUp(): Promise<boolean> {
    const now = this.clock.now().getTime();
    if (now < this.#setUpUntil) return true;
    const setUp = (await this.store.passwordHash()) !== undefined;
    if (setUp) this.#setUpUntil = now + this.#limits.setUpCacheMs;
    return setUp;
  }

  /** Sets (or replaces) the password; every open session ends. */
  async setPassword(password: string): Promise<void> {
    checkNewPassword(password);
    await this.store.setPasswordHash(await this.hasher.hash(password));
    await this.store.removeAllSessions();
  }

  /**
   * @throws DomainError rate_limited when the client is over the limit (LoginBusy when too many
   * logins are being checked at once), unauthorized for a wrong password.
   */
  async login(password: string, client: string): Promise<StartedSession> {
    const now = this.clock.now();
    const clientKey = this.crypto.digest(loginClientOf(client));
    await this.#admit(clientKey, now);
    let release: (() => void) | undefined;
    try {
      release = await this.#slots.acquire();
      if (release === undefined) throw new LoginBusy();
      // Another replica (or a read this one made before a count) took the last attempt first.
      if ((await this.attempts.take(clientKey, now, FAILURE_WINDOW_MS, MAX_FAILURES)) === null) throw limited();
      if (++this.#counted % this.#limits.cleanupEvery === 0) await this.attempts.deleteEnded(now, FAILURE_WINDOW_MS, this.#limits.cleanupEvery);
      const stored = await this.store.passwordHash();
      if (stored === undefined || !(await this.hasher.verify(password, stored))) {
        throw new DomainError('unauthorized', 'Wrong password');
      }
    } finally {
      release?.();
      const left = (this.#pending.get(clientKey) ?? 1) - 1;
      if (left > 0) this.#pending.set(clientKey, left);
      else this.#pending.delete(clientKey);
    }
    await this.attempts.clear(clientKey);
    const token = `${this.ids.next()}${this.ids.next()}`.replace(/-/g, '');
    const session: AdminSession = { csrfToken: this.ids.next(), expiresAt: new Date(now.getTime() + SESSION_HOURS * 3_600_000) };
    await this.store.addSession(this.crypto.digest(token), session);
    return { token, session };
  }

  /**
   * Refuses, without writing anything, a client over the limit: known here, or by its window as
   * stored, or by its attempts under way; else counts the attempt as under way (#pending).
   */
  async #admit(clientKey: string, now: Date): Promise<void> {
    const until = this.#refusedUntil.get(clientKey);
    if (until !== undefined) {
      if (now.getTime() < until) throw limited();
      this.#refusedUntil.delete(clientKey);
    }
    const window = await this.attempts.current(clientKey, now, FAILURE_WINDOW_MS);
    if (window !== null && window.attempts >= MAX_FAILURES) {
      this.#refuseUntil(clientKey, window.endsAt.getTime());
      throw limited();
    }
    const pending = this.#pending.get(clientKey) ?? 0;
    if ((window?.attempts ?? 0) + pending >= MAX_FAILURES) throw limited();
    // In the same step as the check, or a burst would pass it whole.
    this.#pending.set(clientKey, pending + 1);
  }

  #refuseUntil(clientKey: string, until: number): void {
    this.#refusedUntil.delete(clientKey);
    this.#refusedUntil.set(clientKey, until);
    if (this.#refusedUntil.size > this.#limits.refusedClients) {
      const oldest = this.#refusedUntil.keys().next().value;
      if (oldest !== undefined) this.#refusedUntil.delete(oldest);
    }
  }

  /** The session of a cookie value, or null. */
  async session(token: string | undefined): Promise<AdminSession | null> {
    if (!token) return null;
    return this.store.session(this.crypto.digest(token), this.clock.now());
  }

  /** Whether a form's CSRF token is the session's, in constant time. */
  csrfMatches(session: AdminSession, given: unknown): boolean {
    return typeof given === 'string' && this.crypto.equal(given, session.csrfToken);
  }

  async logout(token: string | undefined): Promise<void> {
    if (token) await this.store.removeSession(this.crypto.digest(token));
  }
}
