import { expect } from 'chai';
import { AdminAuthentication, FAILURE_WINDOW_MS, MAX_FAILURES, SESSION_HOURS } from '../../../../src/application/auth/admin-authentication.js';
import { NodeApiKeyCrypto } from '../../../../src/adapters/crypto/node-api-key-crypto.js';
import { ScryptPasswordHasher } from '../../../../src/adapters/crypto/scrypt-password-hasher.js';
import { DomainError } from '../../../../src/domain/errors/domain-error.js';
import type { PasswordHasher } from '../../../../src/ports/password-hasher.js';
import { InMemoryAdminStore } from '../../../fakes/in-memory-admin-store.js';
import { InMemoryLoginAttempts } from '../../../fakes/in-memory-login-attempts.js';
import { FixedClock } from '../../../fakes/fixed-clock.js';
import { SequentialIds } from '../../../fakes/sequential-ids.js';

/** Counts the password checks that reach the (slow) hash. */
class CountingHasher implements PasswordHasher {
  verified = 0;
  readonly #inner = new ScryptPasswordHasher(2 ** 10);
  hash(password: string) {
    return this.#inner.hash(password);
  }
  verify(password: string, stored: string) {
    this.verified++;
    return this.#inner.verify(password, stored);
  }
}

const failure = async (promise: Promise<unknown>): Promise<DomainError> => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).to.be.instanceOf(DomainError);
  return error as DomainError;
};

describe('AdminAuthentication', () => {
  const setup = async () => {
    const store = new InMemoryAdminStore();
    const clock = new FixedClock();
    const attempts = new InMemoryLoginAttempts();
    // A low scrypt cost keeps the unit test fast; the service uses 2^15.
    const hasher = new CountingHasher();
    const auth = new AdminAuthentication(store, attempts, hasher, new NodeApiKeyCrypto(), new SequentialIds(), clock);
    await auth.setPassword('correct horse battery');
    return { store, clock, auth, hasher, attempts };
  };

  it('stores only a salted scrypt hash, never the password', async () => {
    const { store } = await setup();
    expect(store.hash).to.match(/^scrypt\$1024\$8\$1\$[\w-]+\$[\w-]+$/);
    expect(store.hash).not.to.contain('correct horse');
  });

  it('refuses a short password', async () => {
    const { auth } = await setup();
    expect((await failure(auth.setPassword('short'))).message).to.equal('The password must have at least 12 characters');
  });

  it('logs in with the password, and the cookie token finds a session whose digest alone is stored', async () => {
    const { auth, store } = await setup();
    const { token, session } = await auth.login('correct horse battery', '10.0.0.1');
    expect(await auth.session(token)).to.deep.equal(session);
    expect([...store.sessions.keys()]).to.deep.equal([new NodeApiKeyCrypto().digest(token)]);
    expect(await auth.session(`${token}x`)).to.equal(null);
    expect(await auth.session(undefined)).to.equal(null);
  });

  it('refuses a wrong password as unauthorized, then limits a client after too many failures', async () => {
    const { auth, clock } = await setup();
    for (let i = 0; i < MAX_FAILURES; i++) expect((await failure(auth.login('guess', 'attacker'))).code).to.equal('unauthorized');
    expect((await failure(auth.login('correct horse battery', 'attacker'))).code).to.equal('rate_limited');
    expect((await auth.login('correct horse battery', 'someone else')).token).to.be.a('string');
    clock.advance(16 * 60_000);
    expect((await auth.login('correct horse battery', 'attacker')).token).to.be.a('string');
  });

  it('lets at most the limit of 100 parallel wrong guesses reach the password check; the others get 429 at once', async () => {
    const { auth, hasher } = await setup();
    const outcomes = await Promise.all(Array.from({ length: 100 }, () => failure(auth.login('guess', 'burst'))));
    expect(hasher.verified).to.be.at.most(MAX_FAILURES);
    expect(outcomes.filter((e) => e.code === 'unauthorized')).to.have.length(hasher.verified);
    expect(outcomes.filter((e) => e.code === 'rate_limited')).to.have.length(100 - hasher.verified);
  });

  it('refuses the correct password once the limit is reached, without checking it, until the window has passed', async () => {
    const { auth, clock, hasher } = await setup();
    for (let i = 0; i < MAX_FAILURES; i++) await failure(auth.login('guess', 'attacker'));
    const checked = hasher.verified;
    expect((await failure(auth.login('correct horse battery', 'attacker'))).code).to.equal('rate_limited');
    clock.advance(FAILURE_WINDOW_MS - 1);
    expect((await failure(auth.login('correct horse battery', 'attacker'))).code).to.equal('rate_limited');
    expect(hasher.verified).to.equal(checked);
    clock.advance(1);
    expect((await auth.login('correct horse battery', 'attacker')).token).to.be.a('string');
  });

  it('starts the count over after a successful login', async () => {
    const { auth } = await setup();
    for (let i = 0; i < MAX_FAILURES - 1; i++) await failure(auth.login('guess', 'forgetful'));
    await auth.login('correct horse battery', 'forgetful');
    for (let i = 0; i < MAX_FAILURES - 1; i++) expect((await failure(auth.login('guess', 'forgetful'))).code).to.equal('unauthorized');
    expect((await auth.login('correct horse battery', 'forgetful')).token).to.be.a('string');
  });

  it('counts the addresses of one IPv6 /64 network as one client: rotating through them gains no guesses', async () => {
    const { auth } = await setup();
    for (let i = 0; i < MAX_FAILURES; i++) expect((await failure(auth.login('guess', `2001:db8:1:2::${i + 1}`))).code).to.equal('unauthorized');
    expect((await failure(auth.login('guess', '2001:db8:1:2:ffff::99'))).code).to.equal('rate_limited');
    expect((await auth.login('correct horse battery', '2001:db8:1:3::1')).token).to.be.a('string');
  });

  it('keeps clients as digests, not as addresses', async () => {
    const { auth, attempts } = await setup();
    await failure(auth.login('guess', '203.0.113.9'));
    expect([...attempts.windows.keys()]).to.deep.equal([new NodeApiKeyCrypto().digest('203.0.113.9')]);
  });

  it('ends sessions at expiry, at logout, and when the password changes', async () => {
    const { auth, clock } = await setup();
    const first = await auth.login('correct horse battery', 'c');
    clock.advance(SESSION_HOURS * 3_600_000 + 1);
    expect(await auth.session(first.token)).to.equal(null);
    const second = await auth.login('correct horse battery', 'c');
    await auth.logout(second.token);
    expect(await auth.session(second.token)).to.equal(null);
    const third = await auth.login('correct horse battery', 'c');
    await auth.setPassword('another long password');
    expect(await auth.session(third.token)).to.equal(null);
  });

  it("accepts only the session's own CSRF token", async () => {
    const { auth } = await setup();
    const { session } = await auth.login('correct horse battery', 'c');
    expect(auth.csrfMatches(session, session.csrfToken)).to.equal(true);
    for (const bad of [undefined, '', 'x', `${session.csrfToken}x`, 42]) expect(auth.csrfMatches(session, bad)).to.equal(false);
  });
});
