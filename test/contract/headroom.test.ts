import { DEFAULT_HEADROOM, EventLoopHeadroom, type LoopTimes } from '../../src/adapters/system/event-loop-headroom.js';
import { ManualTimer } from '../fakes/manual-timer.js';
import { describeHeadroomContract } from './headroom.contract.js';

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** EventLoopHeadroom with the service's settings, on an event loop the test drives: working or resting, tick by tick. */
describeHeadroomContract('event-loop utilization, with the service settings', () => {
  const settings = DEFAULT_HEADROOM;
  const clock = { now: 1000 };
  let times: LoopTimes = { active: 0, idle: 0 };
  let working = false;
  const spend = (ms: number) => {
    times = working ? { active: times.active + ms, idle: times.idle } : { active: times.active, idle: times.idle + ms };
    clock.now += ms;
  };
  const timer = new ManualTimer();
  const headroom = new EventLoopHeadroom([() => times], settings, timer, () => clock.now);
  const state = (busy: boolean) => {
    working = busy;
    // as it has been over the last window
    spend(settings.windowMs);
  };
  return {
    headroom,
    idle: () => state(false),
    busy: () => state(true),
    pass: async (ms) => {
      for (let passed = 0; passed < ms; passed += settings.tickMs) {
        spend(settings.tickMs);
        timer.fire();
        await settle();
      }
    },
    boundMs: (waiters) => settings.maxWaitMs + (waiters + 1) * settings.tickMs,
  };
});
