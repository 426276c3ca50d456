import { expect } from 'chai';
import type { Headroom } from '../../src/ports/headroom.js';

export interface HeadroomHarness {
  readonly headroom: Headroom;
  /** From now on the service is idle: its callers are answered and it has room (as over the last while). */
  idle(): void;
  /** From now on the service is busy answering its callers. */
  busy(): void;
  /** Lets `ms` pass as the service is (idle or busy), the headroom looking again as often as it does. */
  pass(ms: number): Promise<void>;
  /** The longest that the last of `waiters` waiting together waits under lasting load. */
  boundMs(waiters: number): number;
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Whether each of the waits has resolved, by now. */
const track = (waits: Array<Promise<void>>): boolean[] => {
  const done = waits.map(() => false);
  waits.forEach((wait, i) => void wait.then(() => (done[i] = true)));
  return done;
};

/**
 * The behaviour every Headroom must have: background work (trigger runs, chat replies, jobs)
 * starts at once while the service has room, yields while it is busy, and is slowed down by
 * load, never stopped.
 */
export const describeHeadroomContract = (name: string, open: () => HeadroomHarness): void => {
  describe(`Headroom contract: ${name}`, () => {
    let harness: HeadroomHarness;
    beforeEach(() => {
      harness = open();
    });

    it('lets background work start at once while there is room', async () => {
      harness.idle();
      const done = track([harness.headroom.wait()]);
      await settle();
      expect(done).to.deep.equal([true]);
    });

    it('holds background work while the service is busy, and lets it go once there is room', async () => {
      harness.busy();
      const done = track([harness.headroom.wait(), harness.headroom.wait()]);
      await settle();
      expect(done, 'at once').to.deep.equal([false, false]);
      await harness.pass(harness.boundMs(2) / 4);
      expect(done, 'still busy').to.deep.equal([false, false]);
      harness.idle();
      await harness.pass(harness.boundMs(2) / 4);
      expect(done, 'room again').to.deep.equal([true, true]);
    });

    it('lets every waiter go after a bounded wait under lasting load: slowed down, never stopped', async () => {
      harness.busy();
      const done = track(Array.from({ length: 5 }, () => harness.headroom.wait()));
      await harness.pass(harness.boundMs(5));
      expect(done).to.deep.equal([true, true, true, true, true]);
    });
  });
};
