import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { DEFAULT_HEADROOM, EventLoopHeadroom, type LoopTimes, withRunQueueWait } from '../../../src/adapters/system/event-loop-headroom.js';
import { ManualTimer } from '../../fakes/manual-timer.js';

/** A thread whose loop the test drives: `work(ms)` and `rest(ms)` add to its times; the clock is shared. */
class FakeThread {
  times: LoopTimes = { active: 0, idle: 0 };
  constructor(private readonly clock: { now: number }) {}
  work(ms: number): void {
    this.times = { active: this.times.active + ms, idle: this.times.idle };
    this.clock.now += ms;
  }
  rest(ms: number): void {
    this.times = { active: this.times.active, idle: this.times.idle + ms };
    this.clock.now += ms;
  }
}

describe('EventLoopHeadroom', () => {
  let clock: { now: number };
  let main: FakeThread;
  let timer: ManualTimer;
  const make = (threads: FakeThread[], settings = DEFAULT_HEADROOM) =>
    new EventLoopHeadroom(
      threads.map((thread) => () => thread.times),
      settings,
      timer,
      () => clock.now,
    );
  /** Starts `n` waits and records the order in which they resolve. */
  const waitAll = (headroom: EventLoopHeadroom, n: number) => {
    const started: number[] = [];
    for (let i = 0; i < n; i++) void headroom.wait().then(() => started.push(i));
    return started;
  };
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  beforeEach(() => {
    clock = { now: 1000 };
    main = new FakeThread(clock);
    timer = new ManualTimer();
  });

  it('lets a task start at once, setting no timer, when the loop was mostly idle over the last window', async () => {
    const headroom = make([main]);
    main.work(30);
    main.rest(70);
    const started = waitAll(headroom, 3);
    await settle();
    expect(started).to.deep.equal([0, 1, 2]);
    expect(timer.pending).to.equal(false);
  });

  it("starts at most a tick's worth at once when many tasks arrive together, and the rest tick by tick, in order", async () => {
    const headroom = make([main]);
    main.rest(100);
    const started = waitAll(headroom, 10);
    await settle();
    expect(started, 'at once, with room').to.deep.equal([0, 1, 2, 3]);
    expect(timer.pending, 'a tick for the rest').to.equal(true);
    timer.fire(); // no time has passed: still the same tick
    await settle();
    expect(started).to.deep.equal([0, 1, 2, 3]);
    main.rest(10);
    timer.fire();
    await settle();
    expect(started).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7]);
    main.rest(10);
    timer.fire();
    await settle();
    expect(started).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(timer.pending).to.equal(false);
    main.rest(10);
    const later = waitAll(headroom, 1);
    await settle();
    expect(later, 'a new tick: at once again').to.deep.equal([0]);
  });

  it('holds tasks while the loop is busier than the threshold, then starts them in order, a few per tick', async () => {
    const headroom = make([main]);
    main.work(90);
    main.rest(10);
    const started = waitAll(headroom, 6);
    await settle();
    expect(started, 'at 90 % busy').to.deep.equal([]);
    main.work(10); // still busy at the tick
    timer.fire();
    await settle();
    expect(started).to.deep.equal([]);
    main.rest(120); // a quiet window
    timer.fire();
    await settle();
    expect(started, 'the first tick with room').to.deep.equal([0, 1, 2, 3]);
    main.rest(10);
    timer.fire();
    await settle();
    expect(started).to.deep.equal([0, 1, 2, 3, 4, 5]);
    expect(timer.pending, 'no tick once nobody waits').to.equal(false);
    expect(new Set(timer.waits)).to.deep.equal(new Set([DEFAULT_HEADROOM.tickMs]));
  });

  it('a task that has waited the longest wait starts even under sustained load, one per tick', async () => {
    const headroom = make([main]);
    main.work(100);
    const started = waitAll(headroom, 3);
    for (let waited = 0; waited < DEFAULT_HEADROOM.maxWaitMs - 10; waited += 10) {
      main.work(10);
      timer.fire();
    }
    await settle();
    expect(started, 'before the longest wait').to.deep.equal([]);
    main.work(10);
    timer.fire();
    await settle();
    expect(started).to.deep.equal([0]);
    main.work(10);
    timer.fire();
    await settle();
    expect(started).to.deep.equal([0, 1]);
  });

  it('a busy database thread holds tasks back while the main thread is idle', async () => {
    const database = new FakeThread(clock);
    const headroom = make([main, database]);
    database.work(95);
    main.times = { active: main.times.active, idle: main.times.idle + 95 };
    const started = waitAll(headroom, 1);
    await settle();
    expect(started).to.deep.equal([]);
    expect(timer.pending).to.equal(true);
  });

  it('a new task waits behind the ones already waiting, even when the loop has room again', async () => {
    const headroom = make([main]);
    main.work(100);
    const started = waitAll(headroom, 1);
    main.rest(200);
    void headroom.wait().then(() => started.push(1));
    await settle();
    expect(started).to.deep.equal([]);
    timer.fire();
    await settle();
    expect(started).to.deep.equal([0, 1]);
  });

  it('never waits with a threshold of 100 %', async () => {
    const headroom = make([main], { ...DEFAULT_HEADROOM, busyAbove: 1 });
    main.work(500);
    const started = waitAll(headroom, 2);
    await settle();
    expect(started).to.deep.equal([0, 1]);
    expect(timer.pending).to.equal(false);
  });

  describe('withRunQueueWait: time spent waiting for a CPU counts as working', () => {
    /** schedstat's line: ns on the CPU, ns waiting for one, timeslices. */
    let waitedNs = 0;
    const schedstat = () => `123456 ${waitedNs} 42\n`;

    it('holds tasks when the loop looked idle but waited for a CPU most of the window (other processes had the cores)', async () => {
      const headroom = new EventLoopHeadroom([withRunQueueWait(() => main.times, schedstat)], DEFAULT_HEADROOM, timer, () => clock.now);
      main.work(20);
      main.rest(80);
      waitedNs += 60e6; // 60 of the 80 "idle" ms were spent runnable, waiting for a core
      const started = waitAll(headroom, 1);
      await settle();
      expect(started, 'busy: 20 ms working + 60 ms waiting of 100').to.deep.equal([]);
      main.rest(100); // a quiet window: nothing waited
      timer.fire();
      await settle();
      expect(started).to.deep.equal([0]);
    });

    it('gives the loop times as they are where schedstat cannot be read (not Linux), and stops reading it', () => {
      let reads = 0;
      const source = withRunQueueWait(
        () => ({ active: 5, idle: 7 }),
        () => {
          reads++;
          throw new Error('ENOENT');
        },
      );
      expect(source()).to.deep.equal({ active: 5, idle: 7 });
      expect(source()).to.deep.equal({ active: 5, idle: 7 });
      expect(reads).to.equal(1);
    });

    it("reads this process's main thread from /proc: the waited time only grows (skipped where there is no /proc: not Linux)", function () {
      if (process.platform !== 'linux') this.skip();
      const source = withRunQueueWait(() => ({ active: 0, idle: 1e9 }));
      const first = source();
      const second = source();
      expect(first.active).to.be.at.least(0);
      expect(second.active).to.be.at.least(first.active);
      expect(second.active + second.idle).to.be.closeTo(1e9, 1e-3);
      expect(readFileSync(`/proc/${process.pid}/task/${process.pid}/schedstat`, 'latin1').split(' ')).to.have.length(3);
    });
  });
});
