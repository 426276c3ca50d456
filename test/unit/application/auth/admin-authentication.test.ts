import { expect } from 'chai';
import {
  AdminAuthentication,
  FAILURE_WINDOW_MS,
  LOGIN_LIMITS,
  LoginBusy,
  MAX_FAILURES,
  SESSION_HOURS,
  type LoginLimits,
} from '../../../../src/application/auth/admin-authentication.js';
import { NodeApiKeyCrypto } from '../../../../src/adapters/crypto/node-api-key-crypto.js';
import { ScryptPasswordHasher } from '../../../../src/adapters/crypto/scrypt-password-hasher.js';
import { loginClientOf } from '../../../../src/domain/auth/login-client.js';
import { DomainError } from '../../../../src/domain/errors/domain-error.js';
import type { PasswordHasher } from '../../../../src/ports/password-hasher.js';
import { InMemoryAdminStore } from '../../../fakes/in-memory-admin-store.js';
import { InMemoryLoginAttempts } from '../../../fakes/in-memory-login-attempts.js';
import { FixedClock } from '../../../fakes/fixed-clock.js';
import { ManualTimer } from '../../../fakes/manual-timer.js';
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

/** Counts the reads of the password hash and the session lookups. */
class CountingAdminStore extends InMemoryAdminStore {
  hashReads = 0;
  sessionReads = 0;
  override async passwordHash() {
    this.hashReads++;
    return super.passwordHash();
  }
  override async session(tokenDigest: string, now: Date) {
    this.sessionReads++;
    return super.session(tokenDigest, now);
  }
}

/** A hasher whose checks stay open until the test lets them end; counts those running at once. */
class HeldHasher implements PasswordHasher {
  running = 0;
  mostAtOnce = 0;
  /** The passwords checked, in the order their checks started. */
  readonly checked: string[] = [];
  readonly #held: Array<() => void> = [];
  #started: () => void = () => undefined;
  async hash(password: string) {
    return `held:${password}`;
  }
  async verify(password: string, stored: string) {
    this.running++;
    this.checked.push(password);
    this.mostAtOnce = Math.max(this.mostAtOnce, this.running);
    this.#started();
    await new Promise<void>((resolve) => this.#held.push(resolve));
    this.running--;
    return stored === `held:${password}`;
  }
  /** Resolves once `count` checks are running. */
  async running_(count: number): Promise<void> {
    while (this.running < count) await new Promise<void>((resolve) => (this.#started = resolve));
  }
  /** Resolves once `count` checks have started. */
  async started_(count: number): Promise<void> {
    while (this.checked.length < count) await new Promise<void>((resolve) => (this.#started = resolve));
  }
  /** Lets every check running now end. */
  releaseAll(): void {
    for (const release of this.#held.splice(0)) release();
  }
}

/** Lets every promise callback already due run (no time passes). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

const failure = async (promise: Promise<unknown>): Promise<DomainError> => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).to.be.instanceOf(DomainError);
  return error as DomainError;
};

describe('AdminAuthentication', () => {
  const setup = async (limits: Partial<LoginLimits> = {}) => {
    const store = new CountingAdminStore();
    const clock = new FixedClock();
    const attempts = new InMemoryLoginAttempts();
    // A low scrypt cost keeps the unit test fast; the service uses 2^15.
    const hasher = new CountingHasher();
    const auth = new AdminAuthentication(store, attempts, hasher, new NodeApiKeyCrypto(), new SequentialIds(), clock, new ManualTimer(), limits);
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
    for (let i = 0; i < MAX_FAILURES; i++) expect((await failure(auth.login('guess', '198.51.100.66'))).code).to.equal('unauthorized');
    expect((await failure(auth.login('correct horse battery', '198.51.100.66'))).code).to.equal('rate_limited');
    expect((await auth.login('correct horse battery', '198.51.100.77')).token).to.be.a('string');
    clock.advance(16 * 60_000);
    expect((await auth.login('correct horse battery', '198.51.100.66')).token).to.be.a('string');
  });

  it('lets at most the limit of 100 parallel wrong guesses reach the password check; the others get 429 at once', async () => {
    const { auth, hasher } = await setup();
    const outcomes = await Promise.all(Array.from({ length: 100 }, () => failure(auth.login('guess', '198.51.100.88'))));
    expect(hasher.verified).to.be.at.most(MAX_FAILURES);
    expect(outcomes.filter((e) => e.code === 'unauthorized')).to.have.length(hasher.verified);
    expect(outcomes.filter((e) => e.code === 'rate_limited')).to.have.length(100 - hasher.verified);
  });

  it('refuses the correct password once the limit is reached, without checking it, until the window has passed', async () => {
    const { auth, clock, hasher } = await setup();
    for (let i = 0; i < MAX_FAILURES; i++) await failure(auth.login('guess', '198.51.100.66'));
    const checked = hasher.verified;
    expect((await failure(auth.login('correct horse battery', '198.51.100.66'))).code).to.equal('rate_limited');
    clock.advance(FAILURE_WINDOW_MS - 1);
    expect((await failure(auth.login('correct horse battery', '198.51.100.66'))).code).to.equal('rate_limited');
    expect(hasher.verified).to.equal(checked);
    clock.advance(1);
    expect((await auth.login('correct horse battery', '198.51.100.66')).token).to.be.a('string');
  });

  it('starts the count over after a successful login', async () => {
    const { auth } = await setup();
    for (let i = 0; i < MAX_FAILURES - 1; i++) await failure(auth.login('guess', '198.51.100.99'));
    await auth.login('correct horse battery', '198.51.100.99');
    for (let i = 0; i < MAX_FAILURES - 1; i++) expect((await failure(auth.login('guess', '198.51.100.99'))).code).to.equal('unauthorized');
    expect((await auth.login('correct horse battery', '198.51.100.99')).token).to.be.a('string');
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
    const first = await auth.login('correct horse battery', '192.0.2.3');
    clock.advance(SESSION_HOURS * 3_600_000 + 1);
    expect(await auth.session(first.token)).to.equal(null);
    const second = await auth.login('correct horse battery', '192.0.2.3');
    await auth.logout(second.token);
    expect(await auth.session(second.token)).to.equal(null);
    const third = await auth.login('correct horse battery', '192.0.2.3');
    await auth.setPassword('another long password');
    expect(await auth.session(third.token)).to.equal(null);
  });

  it('leaves no session that counts from a login with the old password whose check was under way while the password changed', async () => {
    const hasher = new HeldHasher();
    const auth = new AdminAuthentication(
      new InMemoryAdminStore(),
      new InMemoryLoginAttempts(),
      hasher,
      new NodeApiKeyCrypto(),
      new SequentialIds(),
      new FixedClock(),
      new ManualTimer(),
    );
    await auth.setPassword('the old, leaked password');
    // Somebody who knows the old password logs in; the check (scrypt) is under way…
    const login = auth.login('the old, leaked password', '198.51.100.7');
    await hasher.started_(1);
    // …while the admin sets a new password, which ends every session.
    await auth.setPassword('a brand new admin password');
    hasher.releaseAll();
    const { token } = await login;
    expect(await auth.session(token)).to.equal(null);
    // A login with the new password gets a session that counts.
    const fresh = auth.login('a brand new admin password', '192.0.2.3');
    await hasher.started_(2);
    hasher.releaseAll();
    expect(await auth.session((await fresh).token)).not.to.equal(null);
  });

  it('answers a cookie value not of the form it makes (64 lower-case hex digits) without asking the store', async () => {
    const { auth, store } = await setup();
    const { token } = await auth.login('correct horse battery', '192.0.2.3');
    expect(token).to.match(/^[0-9a-f]{64}$/);
    for (const bogus of ['', 'x', 'bogus-session', 'AB'.repeat(32), token.slice(1), `${token}0`, `${token.slice(1)}g`, ` ${token.slice(1)}`, `${token}\n`]) {
      expect(await auth.session(bogus), JSON.stringify(bogus)).to.equal(null);
      await auth.logout(bogus);
    }
    expect(store.sessionReads).to.equal(0);
    expect(await auth.session(token)).not.to.equal(null);
    expect(store.sessionReads).to.equal(1);
  });

  it('asks the store once about a well-formed token without a session, and about one whose session was ended by logout not at all', async () => {
    const { auth, store } = await setup();
    const unknown = 'ab'.repeat(32);
    for (let i = 0; i < 5; i++) expect(await auth.session(unknown)).to.equal(null);
    expect(store.sessionReads).to.equal(1);
    const { token } = await auth.login('correct horse battery', '192.0.2.3');
    await auth.logout(token);
    for (let i = 0; i < 5; i++) expect(await auth.session(token)).to.equal(null);
    expect(store.sessionReads).to.equal(1);
  });

  it('finds a new session at once, even when its token was asked about (and found without a session) before the login made it', async () => {
    const { auth } = await setup();
    // SequentialIds: the login's token is made of the next two ids, whose form is known.
    const next = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
    const predicted = `${next(1)}${next(2)}`.replace(/-/g, '');
    expect(await auth.session(predicted)).to.equal(null);
    const { token, session } = await auth.login('correct horse battery', '192.0.2.3');
    expect(token).to.equal(predicted);
    expect(await auth.session(token)).to.deep.equal(session);
  });

  it("accepts only the session's own CSRF token", async () => {
    const { auth } = await setup();
    const { session } = await auth.login('correct horse battery', '192.0.2.3');
    expect(auth.csrfMatches(session, session.csrfToken)).to.equal(true);
    for (const bad of [undefined, '', 'x', `${session.csrfToken}x`, 42]) expect(auth.csrfMatches(session, bad)).to.equal(false);
  });

  describe('login limit without writes', () => {
    it('refuses the 6th and later attempts of a client without writing to the login store, and from the 7th without reading it', async () => {
      const { auth, attempts, hasher } = await setup();
      for (let i = 0; i < MAX_FAILURES; i++) expect((await failure(auth.login('guess', '203.0.113.5'))).code).to.equal('unauthorized');
      const { reads, writes } = attempts;
      const checked = hasher.verified;
      expect((await failure(auth.login('correct horse battery', '203.0.113.5'))).code).to.equal('rate_limited');
      expect(attempts.reads).to.equal(reads + 1);
      for (let i = 0; i < 50; i++) expect((await failure(auth.login('guess', '203.0.113.5'))).code).to.equal('rate_limited');
      expect(attempts.writes).to.equal(writes);
      expect(attempts.reads).to.equal(reads + 1);
      expect(hasher.verified).to.equal(checked);
    });

    it('refuses a burst of 100 from one client at once without counting more than the limit', async () => {
      const { auth, attempts } = await setup();
      const outcomes = await Promise.all(Array.from({ length: 100 }, () => failure(auth.login('guess', '203.0.113.6'))));
      // The limit admits five; one network has one check at a time, so four of those are busy.
      expect(outcomes.filter((e) => e.code === 'unauthorized')).to.have.length(1);
      expect(outcomes.filter((e) => e instanceof LoginBusy)).to.have.length(MAX_FAILURES - 1);
      // One read each, and a count only for the attempt that reached the password check.
      expect(attempts.reads).to.equal(100);
      expect(attempts.writes).to.equal(1);
    });

    it('holds the limit across two replicas sharing one store: failures on one refuse the right password on the other', async () => {
      const store = new CountingAdminStore();
      const attempts = new InMemoryLoginAttempts();
      const hasher = new CountingHasher();
      const clock = new FixedClock();
      const [first, second] = [0, 1].map(
        () => new AdminAuthentication(store, attempts, hasher, new NodeApiKeyCrypto(), new SequentialIds(), clock, new ManualTimer()),
      );
      await first.setPassword('correct horse battery');
      const outcomes = await Promise.all(Array.from({ length: 100 }, (_, i) => failure((i % 2 === 0 ? first : second).login('guess', '203.0.113.7'))));
      // Each replica checks one at a time for the network; the others are refused (busy or over the limit).
      expect(hasher.verified).to.be.at.most(MAX_FAILURES);
      expect(outcomes.filter((e) => e.code === 'unauthorized')).to.have.length(hasher.verified);
      expect(outcomes.filter((e) => e.code === 'rate_limited')).to.have.length(100 - hasher.verified);
      for (let i = 0; i < MAX_FAILURES; i++) await failure(first.login('guess', '203.0.113.8'));
      expect((await failure(second.login('correct horse battery', '203.0.113.8'))).code).to.equal('rate_limited');
      clock.advance(FAILURE_WINDOW_MS);
      expect((await second.login('correct horse battery', '203.0.113.8')).token).to.be.a('string');
    });

    it('counts a client behind a proxy that appends ports as one client, whatever its port', async () => {
      const { auth } = await setup();
      for (let i = 0; i < MAX_FAILURES; i++) await failure(auth.login('guess', `203.0.113.9:${50_000 + i}`));
      expect((await failure(auth.login('correct horse battery', '203.0.113.9:61000'))).code).to.equal('rate_limited');
      expect((await failure(auth.login('correct horse battery', '203.0.113.9'))).code).to.equal('rate_limited');
      for (let i = 0; i < MAX_FAILURES; i++) await failure(auth.login('guess', `[2001:db8:5::${i + 1}]:${443 + i}`));
      expect((await failure(auth.login('correct horse battery', '[2001:db8:5::99]:8443'))).code).to.equal('rate_limited');
    });

    it('remembers a bounded number of refused clients: the oldest forgotten is refused by its stored window', async () => {
      const { auth, attempts } = await setup({ refusedClients: 2 });
      const clients = ['192.0.2.10', '192.0.2.11', '192.0.2.12'];
      for (const client of clients) for (let i = 0; i <= MAX_FAILURES; i++) await failure(auth.login('guess', client));
      const reads = attempts.reads;
      // The two refused last are remembered; the first was forgotten and costs a read.
      for (const client of [...clients].reverse()) expect((await failure(auth.login('correct horse battery', client))).code).to.equal('rate_limited');
      expect(attempts.reads).to.equal(reads + 1);
    });

    it('deletes ended windows once every so many counted attempts, not at each', async () => {
      const { auth, attempts, clock } = await setup({ cleanupEvery: 3 });
      await failure(auth.login('guess', '192.0.2.20'));
      await failure(auth.login('guess', '192.0.2.21'));
      clock.advance(FAILURE_WINDOW_MS);
      await failure(auth.login('guess', '192.0.2.22'));
      expect(attempts.windows.size).to.equal(1);
      await failure(auth.login('guess', '192.0.2.23'));
      clock.advance(FAILURE_WINDOW_MS);
      await failure(auth.login('guess', '192.0.2.24'));
      expect(attempts.windows.size).to.equal(3);
      await failure(auth.login('guess', '192.0.2.25'));
      expect(attempts.windows.size).to.equal(2);
    });
  });

  describe('password checks at once', () => {
    const heldSetup = async (limits: Partial<LoginLimits> = {}) => {
      const attempts = new InMemoryLoginAttempts();
      const hasher = new HeldHasher();
      const timer = new ManualTimer();
      const clock = new FixedClock();
      const auth = new AdminAuthentication(new InMemoryAdminStore(), attempts, hasher, new NodeApiKeyCrypto(), new SequentialIds(), clock, timer, limits);
      await auth.setPassword('correct horse battery');
      const counted = (client: string) => attempts.windows.get(new NodeApiKeyCrypto().digest(loginClientOf(client)))?.attempts ?? 0;
      return { auth, attempts, hasher, timer, counted };
    };
    const outcome = (login: Promise<unknown>): Promise<string> =>
      login.then(
        () => 'ok',
        (e: DomainError) => (e instanceof LoginBusy ? 'busy' : e.code),
      );
    /** The outcome of a login that ends without waiting for a check, else 'still waiting'. */
    const atOnce = (login: Promise<unknown>): Promise<string> => Promise.race([outcome(login), settle().then(() => 'still waiting')]);
    /** Lets the running checks end, one turn after another, until `logins` have all ended. */
    const drain = async (hasher: HeldHasher, logins: Array<Promise<string>>): Promise<string[]> => {
      while ((await Promise.race([Promise.all(logins), settle().then(() => undefined)])) === undefined) hasher.releaseAll();
      return Promise.all(logins);
    };

    it('runs at most two at once across networks; the others wait their turn and are all checked', async () => {
      const { auth, hasher } = await heldSetup();
      const logins = Array.from({ length: 10 }, (_, i) => outcome(auth.login('guess', `198.51.${i}.1`)));
      await hasher.running_(LOGIN_LIMITS.concurrentChecks);
      await settle();
      expect(hasher.running).to.equal(LOGIN_LIMITS.concurrentChecks);
      expect(await drain(hasher, logins)).to.deep.equal(Array(10).fill('unauthorized'));
      expect(hasher.mostAtOnce).to.equal(LOGIN_LIMITS.concurrentChecks);
    });

    it('a flood from 50 clients of one IPv6 /48 gets one check at a time; the admin from another network is checked after at most one of theirs', async () => {
      const { auth, hasher, timer, counted } = await heldSetup({ concurrentChecks: 1 });
      const flood = Array.from({ length: 50 }, (_, i) => outcome(auth.login(`guess ${i}`, `2001:db8:bad:${i.toString(16)}::1`)));
      await hasher.running_(1);
      await settle();
      const admin = outcome(auth.login('correct horse battery', '2001:db8:600d:1::7'));
      await settle();
      expect(hasher.checked).to.deep.equal(['guess 0']);
      expect(timer.waits).to.deep.equal([LOGIN_LIMITS.checkWaitMs]);
      hasher.releaseAll();
      await hasher.started_(2);
      expect(hasher.checked).to.deep.equal(['guess 0', 'correct horse battery']);
      hasher.releaseAll();
      expect(await admin).to.equal('ok');
      expect(await Promise.all(flood)).to.deep.equal(['unauthorized', ...Array(49).fill('busy')]);
      // Refused as busy, the other 49 clients were not counted.
      expect(Array.from({ length: 50 }, (_, i) => counted(`2001:db8:bad:${i.toString(16)}::1`))).to.deep.equal([1, ...Array(49).fill(0)]);
    });

    it('checks the admin at once, with the default limits, however many clients of one /48 flood', async () => {
      const { auth, hasher } = await heldSetup();
      const flood = Array.from({ length: 50 }, (_, i) => outcome(auth.login('guess', `2001:db8:bad:${i.toString(16)}::1`)));
      await hasher.running_(1);
      const admin = outcome(auth.login('correct horse battery', '192.0.2.80'));
      await hasher.running_(2);
      expect(await drain(hasher, [admin, ...flood])).to.deep.equal(['ok', 'unauthorized', ...Array(49).fill('busy')]);
    });

    it('refuses a second attempt from a network that has one being checked as busy, at once and not counted', async () => {
      const { auth, hasher, counted } = await heldSetup();
      const first = outcome(auth.login('guess', '203.0.113.5'));
      await hasher.running_(1);
      expect(await atOnce(auth.login('correct horse battery', '203.0.113.77'))).to.equal('busy');
      expect(await atOnce(auth.login('guess', '203.0.113.5'))).to.equal('busy');
      expect([counted('203.0.113.5'), counted('203.0.113.77')]).to.deep.equal([1, 0]);
      expect(hasher.checked).to.have.length(1);
      hasher.releaseAll();
      expect(await first).to.equal('unauthorized');
      const again = outcome(auth.login('correct horse battery', '203.0.113.77'));
      await hasher.running_(1);
      hasher.releaseAll();
      expect(await again).to.equal('ok');
    });

    it('refuses a second attempt from a network that has one waiting as busy, at once and not counted', async () => {
      const { auth, hasher, counted } = await heldSetup({ concurrentChecks: 1 });
      const running = outcome(auth.login('guess', '198.51.100.1'));
      await hasher.running_(1);
      const waiting = outcome(auth.login('guess', '2001:db8:1:2::1'));
      await settle();
      expect(await atOnce(auth.login('guess', '2001:db8:1:3::1'))).to.equal('busy');
      expect(counted('2001:db8:1:3::1')).to.equal(0);
      expect(await drain(hasher, [running, waiting])).to.deep.equal(['unauthorized', 'unauthorized']);
    });

    it('refuses a login that waited too long for a check as busy, not counted, and its network may try again', async () => {
      const { auth, hasher, timer, counted } = await heldSetup({ concurrentChecks: 1 });
      const running = outcome(auth.login('guess', '198.51.100.1'));
      await hasher.running_(1);
      const waiting = outcome(auth.login('correct horse battery', '192.0.2.9'));
      await settle();
      expect(timer.waits).to.deep.equal([LOGIN_LIMITS.checkWaitMs]);
      timer.fire();
      expect(await waiting).to.equal('busy');
      expect(counted('192.0.2.9')).to.equal(0);
      expect(hasher.checked).to.deep.equal(['guess']);
      hasher.releaseAll();
      expect(await running).to.equal('unauthorized');
      const again = outcome(auth.login('correct horse battery', '192.0.2.9'));
      await hasher.running_(1);
      hasher.releaseAll();
      expect(await again).to.equal('ok');
      expect(timer.armed).to.equal(0);
    });

    it('serves the waiting networks in the order they came; a network that was served joins the end of the line', async () => {
      const { auth, hasher } = await heldSetup({ concurrentChecks: 1 });
      const logins = [outcome(auth.login('a1', '198.51.100.1'))];
      await hasher.running_(1);
      // Another client of a's network, while a is checked: refused, it does not take a place in the line.
      for (const [password, client] of [
        ['b', '2001:db8:b::1'],
        ['a flood', '198.51.100.3'],
        ['c', '192.0.2.1'],
      ]) {
        logins.push(outcome(auth.login(password, client)));
        await settle();
      }
      hasher.releaseAll();
      await hasher.started_(2);
      // a's network again, behind c, which came before it.
      logins.push(outcome(auth.login('a2', '198.51.100.2')));
      await settle();
      logins.push(outcome(auth.login('d', 'unknown')));
      await settle();
      expect(await drain(hasher, logins)).to.deep.equal(['unauthorized', 'unauthorized', 'busy', 'unauthorized', 'unauthorized', 'unauthorized']);
      expect(hasher.checked).to.deep.equal(['a1', 'b', 'c', 'a2', 'd']);
    });

    it('refuses a login as busy at once when as many networks as allowed wait', async () => {
      const { auth, hasher, counted } = await heldSetup({ concurrentChecks: 1, waitingNetworks: 2 });
      const logins = [outcome(auth.login('guess', '198.51.100.1'))];
      await hasher.running_(1);
      for (const client of ['198.51.101.1', '198.51.102.1']) {
        logins.push(outcome(auth.login('guess', client)));
        await settle();
      }
      expect(await atOnce(auth.login('correct horse battery', '198.51.103.1'))).to.equal('busy');
      expect(counted('198.51.103.1')).to.equal(0);
      expect(await drain(hasher, logins)).to.deep.equal(Array(3).fill('unauthorized'));
    });
  });

  describe('#isSetUp', () => {
    it('asks the store again only after a few seconds once a password exists, and at every call while none does', async () => {
      const store = new CountingAdminStore();
      const clock = new FixedClock();
      const auth = new AdminAuthentication(
        store,
        new InMemoryLoginAttempts(),
        new CountingHasher(),
        new NodeApiKeyCrypto(),
        new SequentialIds(),
        clock,
        new ManualTimer(),
      );
      expect(await auth.isSetUp()).to.equal(false);
      expect(await auth.isSetUp()).to.equal(false);
      expect(store.hashReads).to.equal(2);
      store.hash = 'set by another process';
      for (let i = 0; i < 10; i++) expect(await auth.isSetUp()).to.equal(true);
      expect(store.hashReads).to.equal(3);
      store.hash = undefined;
      clock.advance(LOGIN_LIMITS.setUpCacheMs - 1);
      expect(await auth.isSetUp()).to.equal(true);
      clock.advance(1);
      expect(await auth.isSetUp()).to.equal(false);
    });
  });
});
