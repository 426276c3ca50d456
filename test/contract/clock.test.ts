import { SystemClock } from '../../src/adapters/system/system-clock.js';
import { FixedClock } from '../fakes/fixed-clock.js';
import { describeClockContract } from './clock.contract.js';

describeClockContract('the system clock', () => ({
  clock: new SystemClock(),
  // a timer may fire a millisecond early by the wall clock
  pass: (ms) => new Promise((resolve) => setTimeout(resolve, ms + 2)),
}));

describeClockContract('the fixed clock the unit tests set', () => {
  const clock = new FixedClock();
  return { clock, pass: async (ms) => clock.advance(ms) };
});
