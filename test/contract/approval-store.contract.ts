import { expect } from 'chai';
import type { Approval } from '../../src/domain/approvals/approval.js';
import type { ApprovalStore } from '../../src/ports/approval-store.js';

export interface ApprovalStoreHarness {
  readonly store: ApprovalStore;
  /** A second client of the same store (another replica), where the adapter has one. */
  readonly replica?: ApprovalStore;
  close(): Promise<void>;
}

let n = 0;
const uuid = (prefix: string): string => `${prefix}0000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;

const NOW = new Date('2026-11-24T10:00:00.000Z');
const minutes = (m: number): Date => new Date(NOW.getTime() + m * 60_000);

const approval = (overrides: Partial<Approval> = {}): Approval => ({
  id: uuid('a'),
  runId: uuid('3'),
  trigger: 'deploy',
  actionIndex: 1,
  actionType: 'command',
  summary: 'make deploy BRANCH=$AGW_ARG_1 (main)',
  requestId: uuid('2'),
  watchPath: '/webhook',
  firedAt: NOW.toISOString(),
  status: 'pending',
  createdAt: NOW,
  expiresAt: minutes(30),
  decidedBy: null,
  decidedAt: null,
  ...overrides,
});

/** The behaviour every ApprovalStore adapter must have. */
export const describeApprovalStoreContract = (adapter: string, open: () => Promise<ApprovalStoreHarness>): void => {
  describe(`ApprovalStore contract: ${adapter}`, function () {
    this.timeout(60_000);
    let harness: ApprovalStoreHarness;
    before(async () => {
      harness = await open();
    });
    after(async () => harness?.close());

    it('stores a pending approval and finds it with every field; null for an unknown or malformed id', async () => {
      const asked = approval();
      expect(await harness.store.request(asked)).to.deep.equal(asked);
      expect(await harness.store.find(asked.id)).to.deep.equal(asked);
      expect(await harness.store.find(uuid('a'))).to.equal(null);
      expect(await harness.store.find('nope')).to.equal(null);
    });

    it('asks once per run and action: a second request returns the first approval', async () => {
      const first = approval();
      await harness.store.request(first);
      expect(await harness.store.request({ ...first, id: uuid('a'), summary: 'other' })).to.deep.equal(first);
    });

    it('decides a pending approval once; a second decision, an expired one and an unknown id get null', async () => {
      const asked = approval();
      await harness.store.request(asked);
      const decided = await harness.store.decide(asked.id, 'approved', 'admin UI', minutes(1));
      expect(decided).to.deep.equal({ ...asked, status: 'approved', decidedBy: 'admin UI', decidedAt: minutes(1) });
      expect(await harness.store.decide(asked.id, 'denied', 'someone', minutes(2))).to.equal(null);
      expect((await harness.store.find(asked.id))?.status).to.equal('approved');
      const late = approval();
      await harness.store.request(late);
      expect(await harness.store.decide(late.id, 'approved', 'admin UI', minutes(30))).to.equal(null);
      expect(await harness.store.decide(uuid('a'), 'approved', 'admin UI', NOW)).to.equal(null);
      expect(await harness.store.decide('not-a-uuid', 'approved', 'admin UI', NOW)).to.equal(null);
    });

    it('lets exactly one of decisions made at once win, from one client or two', async () => {
      const asked = approval();
      await harness.store.request(asked);
      const other = harness.replica ?? harness.store;
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 === 0 ? harness.store : other).decide(asked.id, i % 3 === 0 ? 'denied' : 'approved', `person ${i}`, minutes(1)),
        ),
      );
      expect(results.filter((result) => result !== null)).to.have.length(1);
    });

    it('expires pending approvals past their time, each once, leaving decided and later ones alone', async () => {
      const early = approval({ createdAt: minutes(-100), expiresAt: minutes(-70) });
      const decided = approval({ createdAt: minutes(-100), expiresAt: minutes(-70) });
      const later = approval({ expiresAt: minutes(60) });
      for (const one of [early, decided, later]) await harness.store.request(one);
      await harness.store.decide(decided.id, 'denied', 'admin UI', minutes(-90));
      const expired = await harness.store.expireDue(minutes(-60), 100);
      expect(expired.map((one) => one.id))
        .to.include(early.id)
        .and.not.to.include(decided.id)
        .and.not.to.include(later.id);
      expect(expired.find((one) => one.id === early.id)).to.deep.include({ status: 'expired', decidedBy: null });
      expect((await harness.store.expireDue(minutes(-60), 100)).map((one) => one.id)).not.to.include(early.id);
      expect((await harness.store.find(later.id))?.status).to.equal('pending');
    });

    it('lists by status, newest first, at most `limit`', async () => {
      const older = approval({ trigger: 'list-test', createdAt: minutes(500), expiresAt: minutes(900) });
      const newer = approval({ trigger: 'list-test', createdAt: minutes(501), expiresAt: minutes(900) });
      await harness.store.request(older);
      await harness.store.request(newer);
      const pending = await harness.store.list({ status: 'pending', limit: 2 });
      expect(pending.map((one) => one.id)).to.deep.equal([newer.id, older.id]);
      expect((await harness.store.list({ status: 'denied', limit: 100 })).every((one) => one.status === 'denied')).to.equal(true);
    });

    it('deletes decided and expired approvals created before a cutoff, never pending ones', async () => {
      const oldDecided = approval({ createdAt: new Date('2020-01-01T00:00:00Z'), expiresAt: new Date('2020-01-01T00:30:00Z') });
      const oldPending = approval({ createdAt: new Date('2020-01-01T00:00:00Z'), expiresAt: new Date('2099-01-01T00:30:00Z') });
      await harness.store.request(oldDecided);
      await harness.store.request(oldPending);
      await harness.store.decide(oldDecided.id, 'approved', 'admin UI', new Date('2020-01-01T00:10:00Z'));
      expect(await harness.store.deleteOlderThan(new Date('2021-01-01T00:00:00Z'), 100)).to.be.at.least(1);
      expect(await harness.store.find(oldDecided.id)).to.equal(null);
      expect(await harness.store.find(oldPending.id)).to.not.equal(null);
    });
  });
};
