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

/** The form of every session token `login` makes: 64 lower-case hex digits (two v4 UUIDs without their dashes). */
const SESSION_TOKEN = /^[0-9a-f]{64}$/;

/** Digests of well-formed tokens found without a session, remembered (oldest dropped first past this many). */
const MAX_ABSENT = 10_000;

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
  /**
   * Digests of well-formed tokens the store had no session for: a cookie sent again costs no
   * query. A digest only gets a session by a login, which makes a new random token (one taken
   * from here by the login that makes it); a session that ended never comes back.
   */
  readonly #absent = new Set<string>();

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

  /**
   * Sets (or replaces) the password; every open session ends: a session counts only while the
   * hash its login checked is stored (AdminStore.session), which also covers a login whose check
   * was under way meanwhile. The sessions are also removed.
   */
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
    let stored: string;
    try {
      release = await this.#slots.acquire(loginNetworkOf(client));
      if (release === undefined) throw new LoginBusy();
      await this.#limit.count(clientKey, now);
      const hash = await this.store.passwordHash();
      if (hash === undefined || !(await this.hasher.verify(password, hash))) {
        throw new DomainError('unauthorized', 'Wrong password');
      }
      stored = hash;
    } finally {
      release?.();
      this.#limit.settle(clientKey);
    }
    await this.#limit.clear(clientKey);
    const token = `${this.ids.next()}${this.ids.next()}`.replace(/-/g, '');
    if (!SESSION_TOKEN.test(token)) throw new Error('A session token must be 64 lower-case hex digits (the ids are not v4 UUIDs)');
    const session: AdminSession = { csrfToken: this.ids.next(), expiresAt: new Date(now.getTime() + SESSION_HOURS * 3_600_000) };
    const digest = this.crypto.digest(token);
    this.#absent.delete(digest);
    // Tied to the hash the password was checked against: should a new password have replaced it
    // while this login was checked (after setPassword ended every session), the session never counts.
    await this.store.addSession(digest, session, stored);
    return { token, session };
  }

  /**
   * The session of a cookie value, or null. A value not of the form `login` makes, or one
   * already found without a session (the last MAX_ABSENT of them), is answered without a query:
   * a flood of malformed or repeated cookies does not reach the database. Each new value of the
   * right form still costs one query.
   */
  async session(token: string | undefined): Promise<AdminSession | null> {
    if (token === undefined || !SESSION_TOKEN.test(token)) return null;
    const digest = this.crypto.digest(token);
    if (this.#absent.has(digest)) return null;
    const session = await this.store.session(digest, this.clock.now());
    if (session === null) this.#rememberAbsent(digest);
    return session;
  }

  #rememberAbsent(digest: string): void {
    if (this.#absent.size >= MAX_ABSENT) this.#absent.delete(this.#absent.values().next().value as string);
    this.#absent.add(digest);
  }

  /** Whether a form's CSRF token is the session's, in constant time. */
  csrfMatches(session: AdminSession, given: unknown): boolean {
    return typeof given === 'string' && this.crypto.equal(given, session.csrfToken);
  }

  async logout(token: string | undefined): Promise<void> {
    if (token === undefined || !SESSION_TOKEN.test(token)) return;
    const digest = this.crypto.digest(token);
    await this.store.removeSession(digest);
    this.#rememberAbsent(digest);
  }
}
