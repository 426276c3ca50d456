import { expect } from 'chai';
import type { DeliveryLog } from '../../src/ports/delivery-log.js';

export interface DeliveryLogHarness {
  readonly log: DeliveryLog;
  /** Another log on the same store (another replica), when the adapter has one. */
  readonly replica?: DeliveryLog;
  /** Dates a recorded delivery at `at`, as if recorded then (behind the log's back). */
  backdate(deliveryId: string, at: Date): Promise<void>;
  /** Forgets every delivery between tests. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

/** The behaviour every DeliveryLog adapter must have. */
export const describeDeliveryLogContract = (name: string, open: () => Promise<DeliveryLogHarness>): void => {
  describe(`DeliveryLog contract: ${name}`, function () {
    this.timeout(60_000);
    let harness: DeliveryLogHarness;
    let log: DeliveryLog;
    before(async () => {
      harness = await open();
    });
    beforeEach(async () => {
      await harness.reset();
      log = harness.log;
    });
    after(async () => harness?.close());

    it('records a delivery the first time (true) and recognises it after (false)', async () => {
      expect(await log.recordFirst('72d3162e-cc78-11e3-81ab-4c9367dc0958', 'push')).to.equal(true);
      expect(await log.recordFirst('72d3162e-cc78-11e3-81ab-4c9367dc0958', 'push')).to.equal(false);
      expect(await log.recordFirst('72d3162e-cc78-11e3-81ab-4c9367dc0958', 'another event')).to.equal(false);
    });

    it('keeps ids apart, chat updates and code-host deliveries alike, up to 200 characters', async () => {
      const long = 'd'.repeat(200);
      for (const id of ['telegram:update:1', 'telegram:update:10', 'abc', long, "x'; delete from codehost_deliveries; --", 'ünïcode 🎉']) {
        expect(await log.recordFirst(id, 'update'), id).to.equal(true);
      }
      expect(await log.recordFirst('telegram:update:1', 'update')).to.equal(false);
      expect(await log.recordFirst(long, 'push')).to.equal(false);
    });

    it('gives exactly one of many recordings of one id at once true, also across replicas', async () => {
      const other = harness.replica ?? log;
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? log : other).recordFirst('telegram:update:42', 'update')));
      expect(answers.filter((answer) => answer)).to.have.length(1);
    });

    it('answers true to the first of several recordings of one id made at once through one log, among many others', async () => {
      // Enough other deliveries between the recordings of one id that no single write could carry them all.
      const ids = Array.from({ length: 4 }, (_, i) => [
        'telegram:update:43',
        ...Array.from({ length: 600 }, (_, j) => `telegram:update:among-${i}-${j}`),
      ]).flat();
      const answers = await Promise.all(ids.map((id) => log.recordFirst(id, 'update')));
      expect(answers.filter((_, i) => ids[i] === 'telegram:update:43')).to.deep.equal([true, false, false, false]);
    });

    it('gives each of many different deliveries recorded at once true, and each repeat afterwards false', async () => {
      const ids = Array.from({ length: 150 }, (_, i) => `telegram:update:burst-${i}`);
      expect(await Promise.all(ids.map((id) => log.recordFirst(id, 'update')))).to.deep.equal(ids.map(() => true));
      expect(await Promise.all(ids.map((id) => log.recordFirst(id, 'update')))).to.deep.equal(ids.map(() => false));
    });

    it('accepts a delivery again once it was forgotten, and forgetting an unknown one is no error', async () => {
      await log.recordFirst('d-1', 'push');
      await log.recordFirst('d-2', 'push');
      await log.forget('d-1');
      await log.forget('never-recorded');
      expect(await log.recordFirst('d-1', 'push')).to.equal(true);
      expect(await log.recordFirst('d-2', 'push')).to.equal(false);
    });

    it('forgets deliveries recorded before a cutoff in bounded batches, oldest first, keeping later ones', async () => {
      const day = 86_400_000;
      for (const id of ['older', 'old', 'recent']) await log.recordFirst(id, 'push');
      await harness.backdate('older', new Date(Date.now() - 10 * day));
      await harness.backdate('old', new Date(Date.now() - 5 * day));
      const cutoff = new Date(Date.now() - 2 * day);
      expect(await log.deleteOlderThan(cutoff, 1)).to.equal(1);
      expect(await log.recordFirst('old', 'push')).to.equal(false);
      expect(await log.deleteOlderThan(cutoff, 10)).to.equal(1);
      expect(await log.deleteOlderThan(cutoff, 10)).to.equal(0);
      expect(await log.recordFirst('recent', 'push')).to.equal(false);
      expect(await log.recordFirst('older', 'push')).to.equal(true);
    });

    const body = (n: number) => Buffer.from(`{"signed body":${n}}`);

    it("records a code-host delivery's body: GitHub's redelivery (same id and body) is a redelivery, the body under another id or another body under the id a repeat", async () => {
      expect(await log.recordDelivery('g-1', 'push', body(1))).to.equal('first');
      expect(await log.recordDelivery('g-1', 'push', body(1))).to.equal('redelivery');
      expect(await log.recordDelivery('g-2', 'push', body(1))).to.equal('repeat');
      expect(await log.recordDelivery('g-3', 'pull_request', body(1))).to.equal('repeat');
      expect(await log.recordDelivery('g-1', 'push', body(2))).to.equal('repeat');
      expect(await log.recordDelivery('g-4', 'push', body(2))).to.equal('first');
      // Neither the repeats nor their ids were kept: the same answers again.
      expect(await log.recordDelivery('g-2', 'push', body(1))).to.equal('repeat');
      expect(await log.recordFirst('g-2', 'push')).to.equal(true);
    });

    it('answers a delivery recorded without its body (before bodies were recorded) as a redelivery of its id, whatever the body', async () => {
      expect(await log.recordFirst('legacy', 'push')).to.equal(true);
      expect(await log.recordDelivery('legacy', 'push', body(3))).to.equal('redelivery');
      expect(await log.recordDelivery('other', 'push', body(3))).to.equal('first');
      expect(await log.recordFirst('other', 'push')).to.equal(false);
    });

    it('gives exactly one of many recordings of one body under different ids at once first, also across replicas', async () => {
      const other = harness.replica ?? log;
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? log : other).recordDelivery(`same-body-${i}`, 'push', body(4))));
      expect(answers.filter((answer) => answer === 'first')).to.have.length(1);
      expect(answers.filter((answer) => answer === 'repeat')).to.have.length(19);
    });

    it('forgets the body with its delivery, on forget and on retention', async () => {
      await log.recordDelivery('f-1', 'push', body(5));
      await log.forget('f-1');
      expect(await log.recordDelivery('f-2', 'push', body(5))).to.equal('first');
      await harness.backdate('f-2', new Date(Date.now() - 10 * 86_400_000));
      expect(await log.deleteOlderThan(new Date(Date.now() - 86_400_000), 10)).to.equal(1);
      expect(await log.recordDelivery('f-3', 'push', body(5))).to.equal('first');
    });

    it('tells whether a delivery is recorded, at once, through any replica, and not once forgotten', async () => {
      const other = harness.replica ?? log;
      expect(await log.recorded('r-1')).to.equal(false);
      expect(await log.recordFirst('r-1', 'chat-reply')).to.equal(true);
      expect(await log.recorded('r-1')).to.equal(true);
      expect(await other.recorded('r-1')).to.equal(true);
      expect(await log.recordDelivery('r-2', 'push', body(9))).to.equal('first');
      expect(await other.recorded('r-2')).to.equal(true);
      expect(await log.recorded('r-3')).to.equal(false);
      await log.forget('r-1');
      expect(await other.recorded('r-1')).to.equal(false);
    });

    it('tells whether a delivery was recorded more than a given time ago (false for one not recorded)', async () => {
      const day = 86_400_000;
      expect(await log.recordDelivery('a-1', 'push', body(7))).to.equal('first');
      expect(await log.recordFirst('a-2', 'watch')).to.equal(true);
      for (const id of ['a-1', 'a-2', 'a-3']) expect(await log.recordedMoreThan(id, day), id).to.equal(false);
      await harness.backdate('a-1', new Date(Date.now() - 15 * day));
      await harness.backdate('a-2', new Date(Date.now() - 13 * day));
      expect(await log.recordedMoreThan('a-1', 14 * day)).to.equal(true);
      expect(await log.recordedMoreThan('a-2', 14 * day)).to.equal(false);
      expect(await log.recordedMoreThan('a-2', 12 * day)).to.equal(true);
      expect(await (harness.replica ?? log).recordedMoreThan('a-1', 14 * day)).to.equal(true);
      expect(await log.recordedMoreThan('a-3', 0)).to.equal(false);
    });

    it('sees a delivery recorded through another replica', async () => {
      const other = harness.replica ?? log;
      expect(await other.recordFirst('d-3', 'push')).to.equal(true);
      expect(await log.recordFirst('d-3', 'push')).to.equal(false);
      await other.forget('d-3');
      expect(await log.recordFirst('d-3', 'push')).to.equal(true);
    });
  });
};
