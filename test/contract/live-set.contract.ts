import { expect } from 'chai';
import type { LiveSet } from '../../src/ports/live-set.js';

interface Entry {
  readonly name: string;
  readonly enabled: boolean;
}

export interface LiveSetHarness {
  readonly live: LiveSet<readonly Entry[]>;
  /** Reloads the configuration with this set. */
  reload(set: readonly Entry[]): void;
}

/**
 * The behaviour every LiveSet must have: a reader that takes `current()` once per unit of work
 * works on one whole set, whatever reloads meanwhile.
 */
export const describeLiveSetContract = (name: string, open: (initial: readonly Entry[]) => LiveSetHarness): void => {
  describe(`LiveSet contract: ${name}`, () => {
    const first: readonly Entry[] = Object.freeze([Object.freeze({ name: 'nightly', enabled: true }), Object.freeze({ name: 'hourly', enabled: false })]);

    it('gives the loaded set on every read until a reload', () => {
      const { live } = open(first);
      expect(live.current()).to.deep.equal(first);
      expect(live.current()).to.deep.equal(first);
    });

    it('replaces the set as a whole on a reload, leaving a set read before as it was', () => {
      const { live, reload } = open(first);
      const taken = live.current();
      const second = [{ name: 'nightly', enabled: false }];
      reload(second);
      expect(live.current(), 'the new set, not merged with the old').to.deep.equal(second);
      expect(taken, 'the snapshot a unit of work holds').to.deep.equal(first);
      reload([]);
      expect(live.current(), 'an empty set is a set').to.deep.equal([]);
    });
  });
};
