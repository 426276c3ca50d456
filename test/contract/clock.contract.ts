import { expect } from 'chai';
import type { Clock } from '../../src/ports/clock.js';

export interface ClockHarness {
  readonly clock: Clock;
  /** Lets `ms` pass. */
  pass(ms: number): Promise<void>;
}

/**
 * The behaviour every Clock must have, the system's and the fixed one the unit tests set, so
 * that what a unit test proves with the fake holds with the real time.
 */
export const describeClockContract = (name: string, open: () => ClockHarness): void => {
  describe(`Clock contract: ${name}`, () => {
    let harness: ClockHarness;
    beforeEach(() => {
      harness = open();
    });

    it('tells the time as a valid Date', () => {
      const now = harness.clock.now();
      expect(now).to.be.instanceOf(Date);
      expect(Number.isNaN(now.getTime())).to.equal(false);
    });

    it('gives each caller a Date of its own: changing it does not change the time', () => {
      const now = harness.clock.now();
      const time = now.getTime();
      now.setTime(0);
      expect(harness.clock.now().getTime()).to.be.at.least(time);
      expect(harness.clock.now()).not.to.equal(harness.clock.now());
    });

    it('moves on with the time that passes, never back', async () => {
      const before = harness.clock.now().getTime();
      await harness.pass(50);
      const after = harness.clock.now().getTime();
      expect(after - before).to.be.at.least(50);
      expect(harness.clock.now().getTime()).to.be.at.least(after);
    });
  });
};
