import { expect } from 'chai';
import type { Timer } from '../../src/ports/timer.js';

export interface TimerHarness {
  readonly timer: Timer;
  /** Lets `ms` pass, less than any pending wait lasts: nothing that is waited for may fire. */
  pass(ms: number): Promise<void>;
  /** Lets the pending wait of `ms` run out (the last one set, when the fake fires one at a time). */
  runOut(ms: number): Promise<void>;
}

/** How many timers keep this process alive now. */
const timersKeepingAlive = (): number => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;

/**
 * The behaviour every Timer must have, the real one and the fakes the unit tests drive
 * schedulers with, so that what a unit test proves with a fake holds with the real timer.
 */
export const describeTimerContract = (name: string, open: () => TimerHarness): void => {
  describe(`Timer contract: ${name}`, () => {
    let harness: TimerHarness;
    let timer: Timer;
    const cancels: Array<() => void> = [];
    const arm = (ms: number, callback: () => void): (() => void) => {
      const cancel = timer.after(ms, callback);
      cancels.push(cancel);
      return cancel;
    };
    beforeEach(() => {
      harness = open();
      timer = harness.timer;
    });
    afterEach(() => {
      for (const cancel of cancels.splice(0)) cancel();
    });

    it('calls the callback once its wait is over, never before, nor from within after() or on the next tick', async () => {
      let calls = 0;
      arm(300, () => calls++);
      expect(calls, 'within after()').to.equal(0);
      await new Promise((resolve) => setImmediate(resolve));
      expect(calls, 'on the next tick').to.equal(0);
      await harness.pass(100);
      expect(calls, 'before the wait is over').to.equal(0);
      await harness.runOut(300);
      expect(calls).to.equal(1);
    });

    it('calls it once only', async () => {
      let calls = 0;
      arm(20, () => calls++);
      await harness.runOut(20);
      await harness.runOut(20);
      expect(calls).to.equal(1);
    });

    it('never calls a callback cancelled before its wait is over; cancelling again is harmless', async () => {
      let calls = 0;
      const cancel = arm(20, () => calls++);
      cancel();
      cancel();
      await harness.runOut(20);
      expect(calls).to.equal(0);
    });

    it('lets a callback cancel its own wait, or one that already fired, harmlessly', async () => {
      let calls = 0;
      const cancel: () => void = arm(20, () => {
        calls++;
        cancel();
      });
      await harness.runOut(20);
      cancel();
      expect(calls).to.equal(1);
    });

    it("lets a callback set the next wait (a scheduler's loop), which fires in its turn and is cancelled on its own", async () => {
      const fired: number[] = [];
      let cancelNext: (() => void) | undefined;
      const cancelFirst = arm(20, () => {
        fired.push(1);
        cancelNext = arm(20, () => fired.push(2));
      });
      await harness.runOut(20);
      cancelFirst();
      await harness.runOut(20);
      expect(fired, 'cancelling the wait that fired leaves the next one').to.deep.equal([1, 2]);
      let third = 0;
      const cancelThird = arm(20, () => third++);
      cancelNext?.();
      await harness.runOut(20);
      expect(third, 'cancelling the fired second wait leaves the third').to.equal(1);
      cancelThird();
    });

    it('never keeps the process alive while a wait is pending', () => {
      const before = timersKeepingAlive();
      const cancel = arm(60_000, () => undefined);
      expect(timersKeepingAlive()).to.equal(before);
      cancel();
    });

    it("waits longer than setTimeout's limit (2^31-1 ms) without firing at once", async () => {
      let calls = 0;
      arm(2 ** 31 + 5_000, () => calls++);
      await harness.pass(50);
      expect(calls).to.equal(0);
    });
  });
};
