import { expect } from 'chai';
import type { IdempotencyKeyStore, IdempotencyRecord } from '../../src/ports/idempotency-key-store.js';

export interface IdempotencyKeyStoreHarness {
  readonly store: IdempotencyKeyStore;
  /** Another store on the same data (another replica), when the adapter has one. */
  readonly replica?: IdempotencyKeyStore;
  /** Forgets every record between tests. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

const HOUR = 3_600_000;
const NOW = new Date('2026-11-24T12:00:00.000Z');
const WINDOW_START = new Date(NOW.getTime() - 24 * HOUR);
const JOB_A = '0b7f5a52-5e3f-4c39-9e2f-6b1d2f2a0001';
const JOB_B = '0b7f5a52-5e3f-4c39-9e2f-6b1d2f2a0002';
const SCOPE = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const OTHER_SCOPE = '7c9e6679-7425-40de-944b-e07fc1f90ae8';
const record = (overrides: Partial<IdempotencyRecord> = {}): IdempotencyRecord => ({
  scope: SCOPE,
  key: 'order-42',
  fingerprint: 'a'.repeat(64),
  jobId: JOB_A,
  createdAt: NOW,
  ...overrides,
});

/** The behaviour every IdempotencyKeyStore adapter must have. */
export const describeIdempotencyKeyStoreContract = (name: string, open: () => Promise<IdempotencyKeyStoreHarness>): void => {
  describe(`IdempotencyKeyStore contract: ${name}`, function () {
    this.timeout(60_000);
    let harness: IdempotencyKeyStoreHarness;
    let store: IdempotencyKeyStore;
    before(async () => {
      harness = await open();
    });
    beforeEach(async () => {
      await harness.reset();
      store = harness.store;
    });
    after(async () => harness?.close());

    it('stores the first claim of a key and answers later claims with it, fingerprint and job included', async () => {
      expect(await store.claim(record(), WINDOW_START)).to.deep.equal(record());
      const later = await store.claim(record({ fingerprint: 'b'.repeat(64), jobId: JOB_B, createdAt: new Date(NOW.getTime() + HOUR) }), WINDOW_START);
      expect(later).to.deep.equal(record());
    });

    it('keeps keys apart per scope (two callers may use one key) and per key, up to 255 printable characters', async () => {
      const long = `${'k'.repeat(254)}~`;
      await store.claim(record(), WINDOW_START);
      expect(await store.claim(record({ key: long, jobId: JOB_B }), WINDOW_START)).to.deep.equal(record({ key: long, jobId: JOB_B }));
      expect(await store.claim(record({ scope: OTHER_SCOPE, jobId: JOB_B }), WINDOW_START)).to.deep.equal(record({ scope: OTHER_SCOPE, jobId: JOB_B }));
      expect(await store.claim(record({ key: "x'; drop table idempotency_keys; --" }), WINDOW_START)).to.include({ jobId: JOB_A });
      expect(await store.claim(record({ key: long }), WINDOW_START)).to.include({ jobId: JOB_B });
      expect(await store.claim(record({ jobId: JOB_B }), WINDOW_START)).to.include({ jobId: JOB_A });
      expect(await store.claim(record({ scope: OTHER_SCOPE }), WINDOW_START)).to.include({ jobId: JOB_B });
    });

    it('replaces an expired record (created before notBefore) with the new claim', async () => {
      await store.claim(record({ createdAt: new Date(WINDOW_START.getTime() - 1) }), WINDOW_START);
      const fresh = record({ jobId: JOB_B, fingerprint: 'c'.repeat(64) });
      expect(await store.claim(fresh, WINDOW_START)).to.deep.equal(fresh);
      expect(await store.claim(record(), WINDOW_START)).to.deep.equal(fresh);
    });

    it('gives exactly one of many concurrent claims of one key the store, and every other claim that record, across replicas', async () => {
      const other = harness.replica ?? store;
      const claims = Array.from({ length: 20 }, (_, i) => record({ jobId: `0b7f5a52-5e3f-4c39-9e2f-6b1d2f2a01${String(i).padStart(2, '0')}` }));
      const answers = await Promise.all(claims.map((claim, i) => (i % 2 === 0 ? store : other).claim(claim, WINDOW_START)));
      const winners = new Set(answers.map((answer) => answer.jobId));
      expect(winners.size).to.equal(1);
      expect(claims.map((claim) => claim.jobId)).to.include([...winners][0]);
    });

    it('releases a key only while it names the given job; releasing an unknown key is no error', async () => {
      await store.claim(record(), WINDOW_START);
      await store.release(SCOPE, 'order-42', JOB_B);
      expect(await store.claim(record({ jobId: JOB_B }), WINDOW_START)).to.include({ jobId: JOB_A });
      await store.release(SCOPE, 'order-42', JOB_A);
      await store.release(SCOPE, 'never-claimed', JOB_A);
      expect(await store.claim(record({ jobId: JOB_B }), WINDOW_START)).to.include({ jobId: JOB_B });
    });

    it('deletes records created before a cutoff in bounded batches, oldest first, keeping later ones', async () => {
      for (const [key, hoursAgo] of [
        ['older', 50],
        ['old', 30],
        ['recent', 1],
      ] as const) {
        await store.claim(record({ key, createdAt: new Date(NOW.getTime() - hoursAgo * HOUR) }), new Date(0));
      }
      expect(await store.deleteOlderThan(WINDOW_START, 1)).to.equal(1);
      expect(await store.claim(record({ key: 'old', jobId: JOB_B }), new Date(0))).to.include({ jobId: JOB_A });
      expect(await store.claim(record({ key: 'older', jobId: JOB_B }), new Date(0))).to.include({ jobId: JOB_B });
      expect(await store.deleteOlderThan(WINDOW_START, 10)).to.equal(1);
      expect(await store.deleteOlderThan(WINDOW_START, 10)).to.equal(0);
      expect(await store.claim(record({ key: 'recent', jobId: JOB_B }), new Date(0))).to.include({ jobId: JOB_A });
    });

    it("deletes old records of one scope only, or of every scope but one (a chat answer's keys are kept longer than a caller's)", async () => {
      for (const scope of [SCOPE, OTHER_SCOPE, 'chat']) {
        await store.claim(record({ scope, key: 'old', createdAt: new Date(NOW.getTime() - 30 * HOUR) }), new Date(0));
        await store.claim(record({ scope, key: 'recent', createdAt: new Date(NOW.getTime() - HOUR) }), new Date(0));
      }
      const held = async (scope: string, key: string) => (await store.claim(record({ scope, key, jobId: JOB_B }), new Date(0))).jobId === JOB_A;
      expect(await store.deleteOlderThan(WINDOW_START, 10, { notScope: 'chat' })).to.equal(2);
      expect(await held('chat', 'old')).to.equal(true);
      expect(await held('chat', 'recent')).to.equal(true);
      expect(await held(SCOPE, 'recent')).to.equal(true);
      expect(await held(SCOPE, 'old')).to.equal(false); // claimed anew, now: kept
      await store.release(SCOPE, 'old', JOB_B);
      expect(await store.deleteOlderThan(WINDOW_START, 10, { scope: OTHER_SCOPE })).to.equal(0);
      expect(await store.deleteOlderThan(WINDOW_START, 10, { scope: 'chat' })).to.equal(1);
      expect(await held('chat', 'old')).to.equal(false);
      expect(await held('chat', 'recent')).to.equal(true);
    });

    it('sees a key claimed through another replica', async () => {
      const other = harness.replica ?? store;
      await other.claim(record(), WINDOW_START);
      expect(await store.claim(record({ jobId: JOB_B }), WINDOW_START)).to.deep.equal(record());
    });
  });
};
