import { expect } from 'chai';
import type { TriggerLanes } from '../../src/ports/trigger-lanes.js';

export interface TriggerLanesHarness {
  readonly lanes: TriggerLanes;
  /** A second client of the same store (another replica), where the adapter has one. */
  readonly replica?: TriggerLanes;
  close(): Promise<void>;
}

let n = 0;
const name = (what: string): string => `${what}-${++n}-${Date.now()}`;

/** The behaviour every TriggerLanes adapter must have. */
export const describeTriggerLanesContract = (adapter: string, open: () => Promise<TriggerLanesHarness>): void => {
  describe(`TriggerLanes contract: ${adapter}`, function () {
    this.timeout(60_000);
    let harness: TriggerLanesHarness;
    before(async () => {
      harness = await open();
    });
    after(async () => harness?.close());

    it('counts 0, 1, 2, … per trigger, each trigger on its own', async () => {
      const a = name('a');
      const b = name('b');
      expect([await harness.lanes.next(a), await harness.lanes.next(a), await harness.lanes.next(b), await harness.lanes.next(a)]).to.deep.equal([0, 1, 0, 2]);
    });

    it('never gives one number twice to calls made at once, from one client or two', async () => {
      const trigger = name('busy');
      const other = harness.replica ?? harness.lanes;
      const numbers = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? harness.lanes : other).next(trigger)));
      expect([...numbers].sort((x, y) => x - y)).to.deep.equal(Array.from({ length: 40 }, (_, i) => i));
    });

    it('takes any name as data: quotes, NUL, a 200-character name', async () => {
      for (const hostile of [`x' ); drop table trigger_lanes; --`, 'a\u0000b', 'é'.repeat(200)]) {
        expect(await harness.lanes.next(hostile), JSON.stringify(hostile)).to.be.a('number');
      }
      expect(await harness.lanes.next(name('after'))).to.equal(0);
    });
  });
};
