import { DomainError } from '../../domain/errors/domain-error.js';
import type { AdminSession, AdminStore } from '../../ports/admin-store.js';
import type { ApiKeyCrypto } from '../../ports/api-key-crypto.js';
import type { Clock } from '../../ports/clock.js';
import type { IdGenerator } from '../../ports/id-generator.js';
import type { LoginAttempts } from '../../ports/login-attempts.js';
import { loginClientOf } from '../../domain/auth/login-client.js';
import type { PasswordHasher } from '../../ports/password-hasher.js';

export const MIN_PASSWORD_LENGTH = 12;
export const SESSION_HOURS = 12;
/** Login attempts allowed per client within the window (a successful one starts over); later ones are refused until it ends. */
export const MAX_FAILURES = 5;
export const FAILURE_WINDOW_MS = 15 * 60_000;

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
 * The limit is counted before the password is checked, atomically and in the database every
 * replica shares (LoginAttempts): an attempt whose number in the client's window is past
 * MAX_FAILURES is refused without computing the hash, however many arrive at once and on
 * whichever replica. A successful login clears the client's count. Clients are kept as
 * digests (their addresses are not stored).
 */
export class AdminAuthentication {
  constructor(
    private readonly store: AdminStore,
    private readonly attempts: LoginAttempts,
    private readonly hasher: PasswordHasher,
    private readonly crypto: ApiKeyCrypto,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
  ) {}

  async isSetUp(): Promise<boolean> {
    return (await this.store.passwordHash()) !== undefined;
  }

  /** Sets (or replaces) the password; every open session ends. */
  async setPassword(password: string): Promise<void> {
    checkNewPassword(password);
    await this.store.setPasswordHash(await this.hasher.hash(password));
    await this.store.removeAllSessions();
  }

  async login(password: string, client: string): Promise<StartedSession> {
    const now = this.clock.now();
    const clientKey = this.crypto.digest(loginClientOf(client));
    if ((await this.attempts.count(clientKey, now, FAILURE_WINDOW_MS)) > MAX_FAILURES) {
      throw new DomainError('rate_limited', 'Too many failed logins; try again later');
    }
    const stored = await this.store.passwordHash();
    if (stored === undefined || !(await this.hasher.verify(password, stored))) {
      throw new DomainError('unauthorized', 'Wrong password');
    }
    await this.attempts.clear(clientKey);
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
