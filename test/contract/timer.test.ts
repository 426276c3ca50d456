import { NodeTimer } from '../../src/adapters/system/node-timer.js';
import { ManualTimer } from '../fakes/manual-timer.js';
import { describeTimerContract } from './timer.contract.js';

/**
 * A wait set after the one under test: Node runs timers in the order they are due, those due
 * together in the order they were set, so once this one ends the shorter one, or the one as long
 * set before it, has run — however late a loaded machine runs either, and with no margin to guess.
 */
const after = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describeTimerContract('setTimeout, unref-ed', () => ({
  timer: new NodeTimer(),
  pass: after,
  runOut: after,
}));

describeTimerContract('the manual fake the unit tests fire', () => {
  const timer = new ManualTimer();
  return {
    timer,
    // no time passes for it until the test fires it
    pass: async () => undefined,
    runOut: async () => timer.fire(),
  };
});
