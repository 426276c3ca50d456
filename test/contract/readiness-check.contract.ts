import { expect } from 'chai';
import type { ReadinessCheck } from '../../src/ports/readiness-check.js';

export interface ReadinessHarness {
  readonly check: ReadinessCheck;
  /** Makes the dependency stop answering (its connection closed, its server gone). */
  stop(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The behaviour every ReadinessCheck must have: CheckReadiness (/health/ready) asks each at once,
 * names it in its answer and logs the cause of a failure.
 */
export const describeReadinessCheckContract = (name: string, open: () => Promise<ReadinessHarness>): void => {
  describe(`ReadinessCheck contract: ${name}`, function () {
    this.timeout(60_000);
    let harness: ReadinessHarness;
    beforeEach(async () => {
      harness = await open();
    });
    afterEach(() => harness.close());

    it('has a name fit for a key of the readiness answer', () => {
      expect(harness.check.name).to.match(/^[a-z][a-z0-9_-]*$/);
    });

    it('resolves while the dependency answers, each time it is asked, also at once', async () => {
      await harness.check.check();
      await Promise.all([harness.check.check(), harness.check.check(), harness.check.check()]);
      await harness.check.check();
    });

    it('rejects with the cause, an Error saying what failed, once the dependency does not answer', async () => {
      await harness.check.check();
      await harness.stop();
      const error = await harness.check.check().then(
        () => expect.fail('expected the check to reject'),
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(Error);
      expect((error as Error).message)
        .to.be.a('string')
        .and.not.equal('');
    });
  });
};
