import { expect } from 'chai';
import type { AdminStore } from '../../src/ports/admin-store.js';

export interface AdminStoreHarness {
  readonly store: AdminStore;
  /** Another store on the same storage (another replica), when the adapter has one. */
  readonly replica?: AdminStore;
  /** Forgets the password and every session between tests. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

const T0 = new Date('2026-11-20T09:00:00.250Z');
const later = (ms: number): Date => new Date(T0.getTime() + ms);
const digest = (name: string): string => name.padStart(64, '0');
const HOUR = 3_600_000;
/** The stored hash the sessions of these tests were made with (their login checked it). */
const HASH = 'scrypt$1024$8$1$salt$current';

/** The behaviour every AdminStore adapter must have. */
export const describeAdminStoreContract = (name: string, open: () => Promise<AdminStoreHarness>): void => {
  describe(`AdminStore contract: ${name}`, function () {
    this.timeout(60_000);
    let harness: AdminStoreHarness;
    let store: AdminStore;
    before(async () => {
      harness = await open();
    });
    beforeEach(async () => {
      await harness.reset();
      store = harness.store;
    });
    after(async () => harness?.close());

    it('has no password hash until one is set, then the last one set', async () => {
      expect(await store.passwordHash()).to.equal(undefined);
      await store.setPasswordHash('scrypt$1024$8$1$salt$first');
      expect(await store.passwordHash()).to.equal('scrypt$1024$8$1$salt$first');
      await store.setPasswordHash('scrypt$1024$8$1$salt$second');
      expect(await store.passwordHash()).to.equal('scrypt$1024$8$1$salt$second');
    });

    it('shares the password hash with another replica', async () => {
      const other = harness.replica ?? store;
      await other.setPasswordHash('scrypt$1024$8$1$salt$elsewhere');
      expect(await store.passwordHash()).to.equal('scrypt$1024$8$1$salt$elsewhere');
    });

    it('finds a session by its digest until it expires, with its fields', async () => {
      await store.setPasswordHash(HASH);
      const session = { csrfToken: 'csrf-token-1', expiresAt: later(12 * HOUR) };
      await store.addSession(digest('a'), session, HASH);
      expect(await store.session(digest('a'), T0)).to.deep.equal(session);
      expect(await store.session(digest('a'), later(12 * HOUR - 1))).to.deep.equal(session);
      expect(await store.session(digest('a'), later(12 * HOUR))).to.equal(null);
      expect(await store.session(digest('a'), later(13 * HOUR))).to.equal(null);
    });

    it('finds no session for an unknown digest', async () => {
      await store.setPasswordHash(HASH);
      await store.addSession(digest('a'), { csrfToken: 'c', expiresAt: later(HOUR) }, HASH);
      expect(await store.session(digest('b'), T0)).to.equal(null);
      expect(await store.session("' or 1=1 --", T0)).to.equal(null);
    });

    it('refuses a second session with the same digest, keeping the first', async () => {
      await store.setPasswordHash(HASH);
      const first = { csrfToken: 'first', expiresAt: later(HOUR) };
      await store.addSession(digest('a'), first, HASH);
      const error = await store.addSession(digest('a'), { csrfToken: 'second', expiresAt: later(2 * HOUR) }, HASH).then(
        () => undefined,
        (e: unknown) => e ?? new Error(),
      );
      expect(error).to.be.instanceOf(Error);
      expect(await store.session(digest('a'), T0)).to.deep.equal(first);
    });

    it('ends one session (logout) and ignores an unknown digest', async () => {
      await store.setPasswordHash(HASH);
      await store.addSession(digest('a'), { csrfToken: 'a', expiresAt: later(HOUR) }, HASH);
      await store.addSession(digest('b'), { csrfToken: 'b', expiresAt: later(HOUR) }, HASH);
      await store.removeSession(digest('a'));
      await store.removeSession(digest('nobody'));
      expect(await store.session(digest('a'), T0)).to.equal(null);
      expect(await store.session(digest('b'), T0)).to.deep.equal({ csrfToken: 'b', expiresAt: later(HOUR) });
    });

    it('deletes expired sessions in bounded batches, the longest expired first, keeping live ones', async () => {
      await store.setPasswordHash(HASH);
      const session = (csrfToken: string, expiresAt: Date) => ({ csrfToken, expiresAt });
      await store.addSession(digest('live'), session('live', later(HOUR)), HASH);
      await store.addSession(digest('edge'), session('edge', T0), HASH);
      await store.addSession(digest('old2'), session('old2', later(-2 * HOUR)), HASH);
      await store.addSession(digest('old3'), session('old3', later(-3 * HOUR)), HASH);
      expect(await store.deleteExpiredSessions(T0, 2)).to.equal(2);
      // Seen from before they expired: the two longest expired are gone, the one that expired just now is not yet.
      const before = later(-4 * HOUR);
      expect(await store.session(digest('old3'), before)).to.equal(null);
      expect(await store.session(digest('old2'), before)).to.equal(null);
      expect(await store.session(digest('edge'), before)).to.deep.equal(session('edge', T0));
      expect(await store.deleteExpiredSessions(T0, 2)).to.equal(1);
      expect(await store.deleteExpiredSessions(T0, 2)).to.equal(0);
      expect(await store.session(digest('edge'), before)).to.equal(null);
      expect(await store.session(digest('live'), T0)).to.deep.equal(session('live', later(HOUR)));
    });

    it('ends every session at once, on every replica', async () => {
      const other = harness.replica ?? store;
      await store.setPasswordHash(HASH);
      await store.addSession(digest('a'), { csrfToken: 'a', expiresAt: later(HOUR) }, HASH);
      await other.addSession(digest('b'), { csrfToken: 'b', expiresAt: later(HOUR) }, HASH);
      expect(await other.session(digest('a'), T0)).not.to.equal(null);
      await other.removeAllSessions();
      expect(await store.session(digest('a'), T0)).to.equal(null);
      expect(await store.session(digest('b'), T0)).to.equal(null);
    });

    it('finds a session only while the password hash its login checked is the stored one, on every replica', async () => {
      const other = harness.replica ?? store;
      const session = { csrfToken: 'a', expiresAt: later(HOUR) };
      await store.setPasswordHash(HASH);
      await store.addSession(digest('a'), session, HASH);
      expect(await other.session(digest('a'), T0)).to.deep.equal(session);
      // A new password (here set by another replica) ends it, even before every session is removed.
      await other.setPasswordHash('scrypt$1024$8$1$salt$new');
      expect(await store.session(digest('a'), T0)).to.equal(null);
      expect(await other.session(digest('a'), T0)).to.equal(null);
    });

    it('never finds a session made by a login that checked a hash already replaced (a password change during its check)', async () => {
      const other = harness.replica ?? store;
      await store.setPasswordHash(HASH);
      // The login read HASH and began its check; meanwhile the password changed and every session was removed.
      await other.setPasswordHash('scrypt$1024$8$1$salt$new');
      await other.removeAllSessions();
      // Its check ends and it adds its session: it must not count.
      await store.addSession(digest('late'), { csrfToken: 'late', expiresAt: later(HOUR) }, HASH);
      expect(await store.session(digest('late'), T0)).to.equal(null);
      expect(await other.session(digest('late'), T0)).to.equal(null);
      // A session made with the new hash counts.
      await store.addSession(digest('new'), { csrfToken: 'new', expiresAt: later(HOUR) }, 'scrypt$1024$8$1$salt$new');
      expect(await store.session(digest('new'), T0)).to.deep.equal({ csrfToken: 'new', expiresAt: later(HOUR) });
    });

    it('finds no session while no password hash is stored', async () => {
      await store.addSession(digest('a'), { csrfToken: 'a', expiresAt: later(HOUR) }, HASH);
      expect(await store.session(digest('a'), T0)).to.equal(null);
    });
  });
};
