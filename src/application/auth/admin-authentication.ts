import { DomainError } from '../../domain/errors/domain-error.js';
import type { AdminSession, AdminStore } from '../../ports/admin-store.js';
import type { ApiKeyCrypto } from '../../ports/api-key-crypto.js';
import type { Clock } from '../../ports/clock.js';
import type { IdGenerator } from '../../ports/id-generator.js';
import type { LoginAttempts } from '../../ports/login-attempts.js';
import { loginClientOf, loginNetworkOf } from '../../domain/auth/login-client.js';
import type { PasswordHasher } from '../../ports/password-hasher.js';
import type { Timer } from '../../ports/timer.js';
import { LoginLimit, type LoginLimitOptions } from './login-limit.js';
import { LoginBusy, PasswordCheckSlots } from './password-check-slots.js';

export { FAILURE_WINDOW_MS, MAX_FAILURES } from './login-limit.js';
export { LoginBusy } from './password-check-slots.js';

export const MIN_PASSWORD_LENGTH = 12;
export const SESSION_HOURS = 12;

/** How the login limit runs; the defaults are the service's. */
export interface LoginLimits extends LoginLimitOptions {
  /** Password checks (scrypt, on libuv's thread pool) at once, across all clients. */
  readonly concurrentChecks: number;
  /** Networks (IPv4 /24, IPv6 /48) whose login may wait for a check, one each; past them a login is refused at once (LoginBusy). */
  readonly waitingNetworks: number;
  /** How long a login waits for a check before it is refused (LoginBusy). */
  readonly checkWaitMs: number;
  /** How long an existing password is taken to exist without asking the store again. */
  readonly setUpCacheMs: number;
}

export const LOGIN_LIMITS: LoginLimits = {
  concurrentChecks: 2,
  waitingNetworks: 10_000,
  checkWaitMs: 10_000,
  refusedClients: 10_000,
  cleanupEvery: 100,
  setUpCacheMs: 5_000,
};

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
 * (stored as digests, with a CSRF token each), login attempts limited per client (LoginLimit:
 * decided before the password is checked, in the store every replica shares; a refused attempt
 * writes nothing). Clients are kept as digests (their addresses are not stored). Password
 * checks at once are also limited across all clients, shared out by network
 * (PasswordCheckSlots), before the attempt is counted, so a login refused for that does not
 * count against its client.
 */
export class AdminAuthentication {
  readonly #limits: LoginLimits;
  readonly #slots: PasswordCheckSlots;
  readonly #limit: LoginLimit;
  #setUpUntil = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly store: AdminStore,
    attempts: LoginAttempts,
    private readonly hasher: PasswordHasher,
    private readonly crypto: ApiKeyCrypto,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    timer: Timer,
    limits: Partial<LoginLimits> = {},
  ) {
    this.#limits = { ...LOGIN_LIMITS, ...limits };
    const { concurrentChecks: running, waitingNetworks, checkWaitMs: waitMs } = this.#limits;
    this.#slots = new PasswordCheckSlots({ running, waitingNetworks, waitMs }, timer);
    this.#limit = new LoginLimit(attempts, this.#limits);
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
   * @throws DomainError rate_limited when the client is over the limit (LoginBusy when its
   * network already has a login checked or waiting, or its wait for a check ran out), unauthorized
   * for a wrong password.
   */
  async login(password: string, client: string): Promise<StartedSession> {
    const now = this.clock.now();
    const clientKey = this.crypto.digest(loginClientOf(client));
    await this.#limit.admit(clientKey, now);
    let release: (() => void) | undefined;
    try {
      release = await this.#slots.acquire(loginNetworkOf(client));
      if (release === undefined) throw new LoginBusy();
      await this.#limit.count(clientKey, now);
      const stored = await this.store.passwordHash();
      if (stored === undefined || !(await this.hasher.verify(password, stored))) {
        throw new DomainError('unauthorized', 'Wrong password');
      }
    } finally {
      release?.();
      this.#limit.settle(clientKey);
    }
    await this.#limit.clear(clientKey);
    const token = `${this.ids.next()}${this.ids.next()}`.replace(/-/g, '');
    const session: AdminSession = { csrfToken: this.ids.next(), expiresAt: new Date(now.getTime() + SESSION_HOURS * 3_600_000) };
    await this.store.addSession(this.crypto.digest(token), session);
    return { token, session };
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
