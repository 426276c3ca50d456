import { expect } from 'chai';
import type { PollerLease } from '../../src/ports/poller-lease.js';

export interface PollerLeaseHarness {
  readonly lease: PollerLease;
  /** Another lease store on the same database (another replica), when the adapter has one. */
  readonly replica?: PollerLease;
  /** Forgets every lease between tests. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

const T0 = new Date('2026-11-24T12:00:00Z');
const at = (ms: number): Date => new Date(T0.getTime() + ms);

/** The behaviour every PollerLease adapter must have. */
export const describePollerLeaseContract = (name: string, open: () => Promise<PollerLeaseHarness>): void => {
  describe(`PollerLease contract: ${name}`, function () {
    this.timeout(60_000);
    let harness: PollerLeaseHarness;
    let lease: PollerLease;
    let other: PollerLease;
    before(async () => {
      harness = await open();
    });
    beforeEach(async () => {
      await harness.reset();
      lease = harness.lease;
      other = harness.replica ?? harness.lease;
    });
    after(async () => harness?.close());

    it('gives a free lease to the first holder and refuses it to another until it expires', async () => {
      expect(await lease.acquire('telegram', 'replica-a', T0, 60_000)).to.equal(true);
      expect(await other.acquire('telegram', 'replica-b', at(30_000), 60_000)).to.equal(false);
      expect(await other.acquire('telegram', 'replica-b', at(60_000), 60_000), 'expired: taken over').to.equal(true);
      expect(await lease.acquire('telegram', 'replica-a', at(61_000), 60_000), 'the former holder is refused').to.equal(false);
    });

    it('renews the lease for its holder, which pushes the expiry back', async () => {
      await lease.acquire('telegram', 'replica-a', T0, 60_000);
      expect(await lease.acquire('telegram', 'replica-a', at(50_000), 60_000)).to.equal(true);
      expect(await other.acquire('telegram', 'replica-b', at(100_000), 60_000), 'renewed until 110 s').to.equal(false);
    });

    it('keeps leases of different names apart', async () => {
      expect(await lease.acquire('telegram', 'replica-a', T0, 60_000)).to.equal(true);
      expect(await other.acquire('slack', 'replica-b', T0, 60_000)).to.equal(true);
    });

    it('gives exactly one of many holders asking at once a free lease, also across replicas', async () => {
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? lease : other).acquire('telegram', `replica-${i}`, T0, 60_000)));
      expect(answers.filter((answer) => answer)).to.have.length(1);
    });

    it('stores the position for the holder only, and keeps it when the lease changes hands', async () => {
      expect(await lease.cursor('telegram')).to.equal(undefined);
      await lease.acquire('telegram', 'replica-a', T0, 60_000);
      expect(await lease.advance('telegram', 'replica-a', '1001', at(1000))).to.equal(true);
      expect(await other.advance('telegram', 'replica-b', '9999', at(1000)), 'not the holder').to.equal(false);
      expect(await other.cursor('telegram')).to.equal('1001');
      expect(await lease.advance('telegram', 'replica-a', '1002', at(60_000)), 'expired').to.equal(false);
      await other.acquire('telegram', 'replica-b', at(60_000), 60_000);
      expect(await other.cursor('telegram')).to.equal('1001');
      expect(await other.advance('telegram', 'replica-b', '1003', at(61_000))).to.equal(true);
      expect(await lease.cursor('telegram')).to.equal('1003');
    });

    it('lets another holder take a released lease at once; releasing what one does not hold changes nothing', async () => {
      await lease.acquire('telegram', 'replica-a', T0, 60_000);
      await other.release('telegram', 'replica-b');
      expect(await other.acquire('telegram', 'replica-b', at(1000), 60_000)).to.equal(false);
      await lease.release('telegram', 'replica-a');
      await lease.release('telegram', 'replica-a');
      expect(await other.acquire('telegram', 'replica-b', at(1000), 60_000)).to.equal(true);
      expect(await lease.advance('telegram', 'replica-a', '5', at(2000))).to.equal(false);
    });
  });
};
