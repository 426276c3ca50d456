import { NodeTimer } from '../../src/adapters/system/node-timer.js';
import { ManualTimer } from '../fakes/manual-timer.js';
import { describeTimerContract } from './timer.contract.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
/** What a loaded machine may add to a real timer's wait. */
const LATE_MS = 100;

describeTimerContract('setTimeout, unref-ed', () => ({
  timer: new NodeTimer(),
  pass: sleep,
  runOut: (ms) => sleep(ms + LATE_MS),
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
