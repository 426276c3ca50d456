import { expect } from 'chai';
import { HmacFingerprintKey } from '../../../../src/adapters/crypto/hmac-fingerprint-key.js';
import { CronParserCronCalendar } from '../../../../src/adapters/schedule/cron-parser-cron-calendar.js';
import { SCHEDULE_RUN_QUEUE, type ScheduleRunTask } from '../../../../src/application/schedules/run-schedule.js';
import { Scheduler } from '../../../../src/application/schedules/scheduler.js';
import type { Schedule } from '../../../../src/domain/schedules/schedule.js';
import { FixedClock } from '../../../fakes/fixed-clock.js';
import { InMemoryScheduleRunRepository } from '../../../fakes/in-memory-schedule-run-repository.js';
import { InMemoryTaskQueue } from '../../../fakes/in-memory-task-queue.js';
import { ManualTimer } from '../../../fakes/manual-timer.js';
import { RecordingLogger } from '../../../fakes/recording-logger.js';

const fingerprintKey = new HmacFingerprintKey('k'.repeat(43));

const schedule = (overrides: Partial<Schedule> = {}): Schedule => ({
  name: 'nightly',
  schedule: '0 3 * * *',
  enabled: true,
  catchUp: true,
  actions: [{ type: 'command', command: 'true' }],
  ...overrides,
});

const setup = (schedules: Schedule[], at = '2026-03-01T12:00:00Z', shared?: { queue: InMemoryTaskQueue; runs: InMemoryScheduleRunRepository }) => {
  const clock = new FixedClock(new Date(at));
  const queue = shared?.queue ?? new InMemoryTaskQueue();
  const runs = shared?.runs ?? new InMemoryScheduleRunRepository();
  const timer = new ManualTimer();
  const logger = new RecordingLogger();
  const scheduler = new Scheduler({ current: () => schedules }, new CronParserCronCalendar(), queue, runs, clock, timer, logger, fingerprintKey);
  const tasks = () => queue.tasks.filter((task) => task.queue === SCHEDULE_RUN_QUEUE).map((task) => task.payload as ScheduleRunTask);
  return { clock, queue, runs, timer, logger, scheduler, tasks };
};

describe('Scheduler', () => {
  describe('#enqueueDue', () => {
    it('enqueues every occurrence after `since` up to and including `until`, and none outside', async () => {
      const { scheduler, tasks } = setup([schedule({ name: 'fast', schedule: '*/2 * * * * *' })]);
      const stored = await scheduler.enqueueDue(new Date('2026-03-01T12:00:00Z'), new Date('2026-03-01T12:00:06Z'));
      expect(stored).to.equal(3);
      expect(tasks().map((task) => task.occurrence)).to.deep.equal(['2026-03-01T12:00:02.000Z', '2026-03-01T12:00:04.000Z', '2026-03-01T12:00:06.000Z']);
    });

    it('stores each occurrence once however many replicas enqueue it (the idempotency key names schedule and occurrence)', async () => {
      const a = setup([schedule({ name: 'fast', schedule: '*/2 * * * * *' })]);
      const b = setup([schedule({ name: 'fast', schedule: '*/2 * * * * *' })], undefined, { queue: a.queue, runs: a.runs });
      const window = [new Date('2026-03-01T12:00:00Z'), new Date('2026-03-01T12:00:04Z')] as const;
      expect(await a.scheduler.enqueueDue(...window)).to.equal(2);
      expect(await b.scheduler.enqueueDue(...window)).to.equal(0);
      expect(a.tasks()).to.have.length(2);
      const recorded = await a.runs.forSchedule('fast', 10);
      expect(recorded.map((run) => [run.occurrence.toISOString(), run.status])).to.deep.equal([
        ['2026-03-01T12:00:04.000Z', 'queued'],
        ['2026-03-01T12:00:02.000Z', 'queued'],
      ]);
    });

    it('reads the expression in the schedule’s time zone', async () => {
      const { scheduler, tasks } = setup([schedule({ schedule: '0 9 * * *', timezone: 'Europe/Berlin' })]);
      // 09:00 in Berlin is 08:00 UTC in winter, 07:00 UTC in summer (DST from 29 March 2026).
      await scheduler.enqueueDue(new Date('2026-03-27T00:00:00Z'), new Date('2026-03-31T00:00:00Z'));
      expect(tasks().map((task) => task.occurrence)).to.deep.equal([
        '2026-03-27T08:00:00.000Z',
        '2026-03-28T08:00:00.000Z',
        '2026-03-29T07:00:00.000Z',
        '2026-03-30T07:00:00.000Z',
      ]);
    });

    it('reads a schedule without timezone in UTC, whatever the process’s TZ (every replica, and crons check, find the same times)', async () => {
      const saved = process.env.TZ;
      try {
        process.env.TZ = 'America/New_York';
        const { scheduler, tasks } = setup([schedule({ schedule: '0 9 * * *' })]);
        await scheduler.enqueueDue(new Date('2026-12-01T00:00:00Z'), new Date('2026-12-02T00:00:00Z'));
        expect(tasks().map((task) => task.occurrence)).to.deep.equal(['2026-12-01T09:00:00.000Z']);
      } finally {
        if (saved === undefined) delete process.env.TZ;
        else process.env.TZ = saved;
      }
    });

    it('ignores disabled schedules', async () => {
      const { scheduler, tasks } = setup([schedule({ schedule: '* * * * * *', enabled: false })]);
      expect(await scheduler.enqueueDue(new Date('2026-03-01T12:00:00Z'), new Date('2026-03-01T12:01:00Z'))).to.equal(0);
      expect(tasks()).to.deep.equal([]);
    });
  });

  describe('the loop', () => {
    it('waits until the next occurrence, then enqueues it', async () => {
      const { scheduler, timer, clock, tasks } = setup([schedule({ schedule: '*/10 * * * * *' })], '2026-03-01T12:00:03Z');
      await scheduler.start();
      expect(timer.waits).to.deep.equal([7000]);
      clock.advance(7000);
      timer.fire();
      await new Promise((done) => setImmediate(done));
      expect(tasks().map((task) => task.occurrence)).to.deep.equal(['2026-03-01T12:00:10.000Z']);
      expect(timer.waits.at(-1)).to.equal(10_000);
      scheduler.stop();
      expect(timer.pending).to.equal(false);
    });

    it('waits at most a minute at a time for a distant occurrence', async () => {
      const { scheduler, timer } = setup([schedule({ schedule: '0 3 * * *' })]);
      await scheduler.start();
      expect(timer.waits).to.deep.equal([60_000]);
      scheduler.stop();
    });

    it('keeps the occurrences of a failed enqueue and enqueues them on the retry', async () => {
      const { scheduler, timer, clock, queue, tasks, logger } = setup([schedule({ schedule: '*/10 * * * * *' })], '2026-03-01T12:00:03Z');
      await scheduler.start();
      clock.advance(7000);
      queue.failNext = true;
      await scheduler.tick();
      expect(tasks()).to.deep.equal([]);
      expect(logger.entries.map((entry) => entry.message)).to.include('could not enqueue due schedule runs; trying again');
      expect(timer.waits.at(-1)).to.equal(1000);
      clock.advance(1000);
      await scheduler.tick();
      expect(tasks().map((task) => task.occurrence)).to.deep.equal(['2026-03-01T12:00:10.000Z']);
      scheduler.stop();
    });
  });

  describe('while the database is down (schedules attacker pass)', () => {
    /**
     * A scheduler started at noon whose enqueues fail for `outageMs` (each look retried a second
     * later, as the loop does); returns the tasks stored once the database is back, and what was
     * recorded and logged.
     */
    const outage = async (overrides: Partial<Schedule>, outageMs: number) => {
      const { scheduler, timer, clock, queue, runs, logger, tasks } = setup([schedule(overrides)], '2026-06-01T12:00:00.500Z');
      await scheduler.start();
      let down = true;
      const enqueue = queue.enqueue.bind(queue);
      queue.enqueue = async (...args: Parameters<typeof queue.enqueue>) => {
        if (down) throw new Error('connection refused');
        return enqueue(...args);
      };
      const add = runs.add.bind(runs);
      runs.add = async (...args: Parameters<typeof runs.add>) => {
        if (down) throw new Error('connection refused');
        return add(...args);
      };
      const back = clock.now().getTime() + outageMs;
      while (clock.now().getTime() < back) {
        clock.advance(Math.max(1, timer.waits.at(-1) ?? 1000));
        await scheduler.tick();
      }
      down = false;
      clock.advance(Math.max(1, timer.waits.at(-1) ?? 1000));
      await scheduler.tick();
      scheduler.stop();
      return { tasks: tasks().map((task) => [task.occurrence, task.catchUp]), runs, logger };
    };

    it('judges a 15-minute outage as a stall once the database is back: the last occurrence runs once, as a catch-up, not the last ten at once with the first five dropped', async () => {
      const { tasks, logger } = await outage({ schedule: '* * * * *' }, 15 * 60_000);
      expect(tasks).to.deep.equal([['2026-06-01T12:15:00.000Z', true]]);
      expect(logger.entries.find((entry) => entry.message.includes('(catch-up)'))?.fields).to.deep.include({ missed: 15 });
    });

    it('with catch_up false runs none of what a 15-minute outage missed, and records the last as missed', async () => {
      const { tasks, runs } = await outage({ schedule: '* * * * *', catchUp: false }, 15 * 60_000);
      expect(tasks).to.deep.equal([]);
      const [last] = await runs.forSchedule('nightly', 10);
      expect([last.occurrence.toISOString(), last.status, last.error]).to.deep.equal([
        '2026-06-01T12:15:00.000Z',
        'missed',
        'missed while the service was stalled (15 occurrences); catch_up is false',
      ]);
    });

    it('enqueues every occurrence of a seconds schedule that fell due during an outage shorter than a minute, none dropped', async () => {
      const { tasks } = await outage({ schedule: '*/2 * * * * *' }, 30_000);
      expect(tasks.map(([occurrence]) => occurrence)).to.deep.equal(
        Array.from({ length: 16 }, (_, i) => new Date(Date.parse('2026-06-01T12:00:02Z') + i * 2000).toISOString()),
      );
      expect(tasks.every(([, catchUp]) => catchUp === false)).to.equal(true);
    });
  });

  describe('after a stall (a clock jump forward, a suspended VM, a stopped process) (attacker pass, S1)', () => {
    /** A scheduler on a calendar that counts its next() calls, started at noon, then stalled for `hours`, and its late look. */
    const stall = async (overrides: Partial<Schedule>, hours: number) => {
      const clock = new FixedClock(new Date('2026-06-01T12:00:00Z'));
      const queue = new InMemoryTaskQueue();
      const runs = new InMemoryScheduleRunRepository();
      const timer = new ManualTimer();
      const logger = new RecordingLogger();
      const real = new CronParserCronCalendar();
      let calls = 0;
      const calendar = {
        problem: real.problem.bind(real),
        previous: real.previous.bind(real),
        next: (expression: string, timezone: string | undefined, after: Date) => {
          calls++;
          return real.next(expression, timezone, after);
        },
      };
      const scheduler = new Scheduler({ current: () => [schedule(overrides)] }, calendar, queue, runs, clock, timer, logger, fingerprintKey);
      await scheduler.start();
      clock.advance(hours * 3_600_000);
      calls = 0;
      await scheduler.tick();
      scheduler.stop();
      const tasks = queue.tasks.filter((task) => task.queue === SCHEDULE_RUN_QUEUE).map((task) => task.payload as ScheduleRunTask);
      return { tasks, runs, logger, calls };
    };

    it('finds the last occurrence of a schedule every second after a day’s jump directly, without stepping through the 86 400', async () => {
      const { tasks, calls } = await stall({ schedule: '* * * * * *' }, 24);
      expect(tasks.map((task) => [task.occurrence, task.catchUp])).to.deep.equal([['2026-06-02T12:00:00.000Z', true]]);
      expect(calls).to.be.below(2000);
    });

    it('with catch_up false enqueues none of the 24 occurrences of `*/5` a two-hour pause missed, and records the last as missed', async () => {
      const { tasks, runs, logger } = await stall({ schedule: '*/5 * * * *', catchUp: false }, 2);
      expect(tasks).to.deep.equal([]);
      const [last] = await runs.forSchedule('nightly', 10);
      expect([last.occurrence.toISOString(), last.status]).to.deep.equal(['2026-06-01T14:00:00.000Z', 'missed']);
      expect(last.error).to.include('24 occurrences');
      expect(logger.entries.find((entry) => entry.level === 'warn')?.fields).to.deep.include({ schedule: 'nightly', missed: 24 });
    });

    it('with catch_up runs the last occurrence a two-hour pause missed once, as a catch-up', async () => {
      const { tasks, logger } = await stall({ schedule: '*/5 * * * *' }, 2);
      expect(tasks.map((task) => [task.occurrence, task.catchUp])).to.deep.equal([['2026-06-01T14:00:00.000Z', true]]);
      expect(logger.entries.find((entry) => entry.message.includes('(catch-up)'))?.fields).to.deep.include({ missed: 24 });
    });

    it('caps the steps of a look given a long span anyway, enqueueing the last occurrence only', async () => {
      const { scheduler, tasks } = setup([schedule({ name: 'fast', schedule: '* * * * * *' })]);
      expect(await scheduler.enqueueDue(new Date('2026-03-01T12:00:00Z'), new Date('2026-03-02T12:00:00Z'))).to.equal(1);
      expect(tasks().map((task) => task.occurrence)).to.deep.equal(['2026-03-02T12:00:00.000Z']);
    });
  });

  describe('across daylight-saving changes (Europe/Berlin), looking every minute as the loop does', () => {
    /** Runs the loop from `from` for five hours, firing each wait it asks for; the occurrences enqueued. */
    const loop = async (expression: string, from: string): Promise<string[]> => {
      const { scheduler, timer, clock, tasks } = setup([schedule({ schedule: expression, timezone: 'Europe/Berlin' })], from);
      await scheduler.start();
      const end = clock.now().getTime() + 5 * 3_600_000;
      while (clock.now().getTime() < end) {
        clock.advance(Math.max(1, timer.waits.at(-1) ?? 60_000));
        timer.fire();
        for (let i = 0; i < 5; i++) await new Promise((done) => setImmediate(done));
      }
      scheduler.stop();
      return tasks().map((task) => task.occurrence);
    };

    it('runs a daily 02:30 once on the night the clocks go forward (at 03:30, as cron does), not the next day only', async () => {
      expect(await loop('30 2 * * *', '2026-03-28T22:00:00Z')).to.deep.equal(['2026-03-29T01:30:00.000Z']);
    });

    it('runs a daily 02:30 once on the night the clocks go back, not in both 02:30s', async () => {
      expect(await loop('30 2 * * *', '2026-10-24T22:00:00Z')).to.deep.equal(['2026-10-25T00:30:00.000Z']);
    });

    it('runs `0,30 2` at the first 02:00 and 02:30 only on the night the clocks go back', async () => {
      expect(await loop('0,30 2 * * *', '2026-10-24T22:00:00Z')).to.deep.equal(['2026-10-25T00:00:00.000Z', '2026-10-25T00:30:00.000Z']);
    });

    it('runs no second 02:30 of `0,30 2` when it starts inside the repeated hour (after the second 02:00)', async () => {
      expect(await loop('0,30 2 * * *', '2026-10-25T01:15:00Z')).to.deep.equal([]);
    });

    it('runs no second 02:30 of a daily 02:30 when it starts inside the repeated hour', async () => {
      expect(await loop('30 2 * * *', '2026-10-25T01:15:00Z')).to.deep.equal([]);
    });

    it('runs a daily 02:30 at 03:30 when it starts on the night the clocks go forward after 03:00', async () => {
      expect(await loop('30 2 * * *', '2026-03-29T01:10:00Z')).to.deep.equal(['2026-03-29T01:30:00.000Z']);
    });

    it('runs an hourly schedule every hour through the repeated hour, as cron does', async () => {
      expect(await loop('0 * * * *', '2026-10-24T22:30:00Z')).to.deep.equal([
        '2026-10-24T23:00:00.000Z',
        '2026-10-25T00:00:00.000Z',
        '2026-10-25T01:00:00.000Z',
        '2026-10-25T02:00:00.000Z',
        '2026-10-25T03:00:00.000Z',
      ]);
    });
  });

  it('keeps one timer when the schedules are reloaded while a look waits on the database', async () => {
    const { scheduler, timer, clock, queue } = setup([schedule({ schedule: '*/10 * * * * *' })], '2026-03-01T12:00:03Z');
    await scheduler.start();
    let release!: () => void;
    const enqueue = queue.enqueue.bind(queue);
    queue.enqueue = async (...args: Parameters<typeof queue.enqueue>) => {
      await new Promise<void>((done) => (release = done));
      return enqueue(...args);
    };
    clock.advance(7000);
    const looking = scheduler.tick();
    await new Promise((done) => setImmediate(done));
    scheduler.refresh();
    release();
    await looking;
    expect(timer.armed).to.equal(1);
    scheduler.stop();
    expect(timer.armed).to.equal(0);
  });

  describe('a reload (attacker pass, S1)', () => {
    it('runs a schedule it enables or changes at its next occurrence after the reload, not one that fell due before; the others keep theirs', async () => {
      const schedules = [
        schedule({ name: 'enabled', enabled: false }),
        schedule({ name: 'changed', schedule: '0 2 * * *' }),
        schedule({ name: 'unchanged' }),
        schedule({ name: 'added' }),
      ];
      const current = schedules.slice(0, 3);
      const clock = new FixedClock(new Date('2026-06-01T02:59:10Z'));
      const queue = new InMemoryTaskQueue();
      const timer = new ManualTimer();
      const scheduler = new Scheduler(
        { current: () => current },
        new CronParserCronCalendar(),
        queue,
        new InMemoryScheduleRunRepository(),
        clock,
        timer,
        new RecordingLogger(),
        fingerprintKey,
      );
      const tasks = () => queue.tasks.map((task) => task.payload as ScheduleRunTask).map((task) => `${task.schedule} ${task.occurrence}`);
      await scheduler.start();
      // The look planned for 03:00 comes a few seconds late; a reload just before it enables, changes and adds schedules of 03:00.
      clock.current = new Date('2026-06-01T03:00:05Z');
      current.splice(0, current.length, schedule({ name: 'enabled' }), schedule({ name: 'changed' }), schedules[2], schedules[3]);
      await scheduler.refresh();
      await scheduler.tick();
      expect(tasks()).to.deep.equal(['unchanged 2026-06-01T03:00:00.000Z']);
      clock.current = new Date('2026-06-02T02:59:30Z');
      await scheduler.tick();
      clock.advance(30_000);
      await scheduler.tick();
      scheduler.stop();
      expect(tasks().slice(1).sort()).to.deep.equal([
        'added 2026-06-02T03:00:00.000Z',
        'changed 2026-06-02T03:00:00.000Z',
        'enabled 2026-06-02T03:00:00.000Z',
        'unchanged 2026-06-02T03:00:00.000Z',
      ]);
    });
  });

  describe('#catchUp', () => {
    it('enqueues the last occurrence missed since the last recorded one once, as a catch-up', async () => {
      const first = setup([schedule()], '2026-03-01T03:00:00Z');
      await first.scheduler.enqueueDue(new Date('2026-03-01T02:59:00Z'), new Date('2026-03-01T03:00:00Z'));
      // Down for three days: the occurrences of 2, 3 and 4 March were missed.
      const later = setup([schedule()], '2026-03-04T12:00:00Z', { queue: first.queue, runs: first.runs });
      await later.scheduler.catchUp(new Date('2026-03-04T12:00:00Z'));
      expect(later.tasks().map((task) => [task.occurrence, task.catchUp])).to.deep.equal([
        ['2026-03-01T03:00:00.000Z', false],
        ['2026-03-04T03:00:00.000Z', true],
      ]);
      const line = later.logger.entries.find((entry) => entry.message.includes('(catch-up)'));
      expect(line?.fields).to.deep.include({ schedule: 'nightly', occurrence: '2026-03-04T03:00:00.000Z', missed: 3 });
      // A second replica starting at the same time finds it enqueued: no second run, no second line.
      const replica = setup([schedule()], '2026-03-04T12:00:00Z', { queue: first.queue, runs: first.runs });
      await replica.scheduler.catchUp(new Date('2026-03-04T12:00:00Z'));
      expect(replica.tasks()).to.have.length(2);
      expect(replica.logger.entries.filter((entry) => entry.message.includes('catch-up'))).to.deep.equal([]);
    });

    it('with catch_up false records the last missed occurrence as missed and enqueues nothing', async () => {
      const first = setup([schedule({ catchUp: false })], '2026-03-01T03:00:00Z');
      await first.scheduler.enqueueDue(new Date('2026-03-01T02:59:00Z'), new Date('2026-03-01T03:00:00Z'));
      const later = setup([schedule({ catchUp: false })], '2026-03-03T12:00:00Z', { queue: first.queue, runs: first.runs });
      await later.scheduler.catchUp(new Date('2026-03-03T12:00:00Z'));
      expect(later.tasks()).to.have.length(1);
      const [last] = await later.runs.forSchedule('nightly', 1);
      expect(last).to.deep.include({ status: 'missed', catchUp: false, runId: null });
      expect(last.occurrence.toISOString()).to.equal('2026-03-03T03:00:00.000Z');
      expect(later.logger.entries.find((entry) => entry.level === 'warn')?.message).to.equal(
        'schedule missed occurrences while the service was down; not run (catch_up false)',
      );
    });

    describe('on the day the clocks go back (Europe/Berlin, 25 October 2026), for a daily 02:30', () => {
      const berlin = (catchUp = true) => schedule({ schedule: '30 2 * * *', timezone: 'Europe/Berlin', catchUp });
      /** A scheduler that ran the loop from `ranFrom` to `stoppedAt`, then one started at `restartAt` on the same store. */
      const restart = async (ranFrom: string, stoppedAt: string, restartAt: string, catchUp = true) => {
        const first = setup([berlin(catchUp)], ranFrom);
        await first.scheduler.enqueueDue(new Date(ranFrom), new Date(stoppedAt));
        const later = setup([berlin(catchUp)], restartAt, { queue: first.queue, runs: first.runs });
        await later.scheduler.catchUp(new Date(restartAt));
        return later;
      };

      it('queues nothing after a restart when the day’s (first) 02:30 ran: the second 02:30 is not a missed occurrence', async () => {
        const later = await restart('2026-10-24T12:00:00Z', '2026-10-25T00:31:00Z', '2026-10-25T12:00:00Z');
        expect(later.tasks().map((task) => task.occurrence)).to.deep.equal(['2026-10-25T00:30:00.000Z']);
        expect(later.logger.entries.filter((entry) => entry.message.includes('catch-up'))).to.deep.equal([]);
      });

      it('with catch_up false records nothing as missed', async () => {
        const later = await restart('2026-10-24T12:00:00Z', '2026-10-25T00:31:00Z', '2026-10-25T12:00:00Z', false);
        const recorded = await later.runs.forSchedule('nightly', 10);
        expect(recorded.map((run) => [run.occurrence.toISOString(), run.status])).to.deep.equal([['2026-10-25T00:30:00.000Z', 'queued']]);
      });

      it('still catches up the day’s 02:30 when it was really missed (after days down), under the key the loop uses', async () => {
        const later = await restart('2026-10-19T12:00:00Z', '2026-10-20T12:00:00Z', '2026-10-25T12:00:00Z');
        expect(later.tasks().map((task) => [task.occurrence, task.catchUp])).to.deep.equal([
          ['2026-10-20T00:30:00.000Z', false],
          ['2026-10-25T00:30:00.000Z', true],
        ]);
        const line = later.logger.entries.find((entry) => entry.message.includes('(catch-up)'));
        expect(line?.fields).to.deep.include({ occurrence: '2026-10-25T00:30:00.000Z', missed: 5 });
      });
    });

    describe('across daylight-saving changes (Europe/Berlin), taking the occurrence the loop (next()) runs, never one from previous() alone', () => {
      // 29 March 2026: 02:00 CET becomes 03:00 CEST at 01:00Z; the loop runs a daily 02:30 at 03:30 (01:30Z), `0,30 2` once at 03:00 (01:00Z).
      // 25 October 2026: 03:00 CEST becomes 02:00 CET at 01:00Z; the loop runs a daily 02:30 at the first 02:30 (00:30Z) only,
      // `0,30 2` at 00:00Z and 00:30Z only, an hourly :30 in both repeated hours (00:30Z and 01:30Z).
      const cases: Array<[string, string, string, string, string | null, number?]> = [
        // [expression, last recorded, restart, what the loop ran meanwhile, due (null: nothing), missed]
        ['30 2 * * *', '2026-03-28T01:30:00Z', '2026-03-29T12:00:00Z', 'last before the gap, down through it', '2026-03-29T01:30:00.000Z', 1],
        ['30 2 * * *', '2026-03-25T01:30:00Z', '2026-03-29T12:00:00Z', 'down for days up to the gap day', '2026-03-29T01:30:00.000Z', 4],
        ['30 2 * * *', '2026-03-28T01:30:00Z', '2026-03-29T01:15:00Z', 'restart inside the gap day before 03:30', null],
        ['30 2 * * *', '2026-03-29T01:30:00Z', '2026-03-29T12:00:00Z', 'last at the gap day’s 03:30', null],
        ['30 2 * * *', '2026-03-29T01:30:00Z', '2026-03-30T12:00:00Z', 'last at the gap day’s 03:30, down a day', '2026-03-30T00:30:00.000Z', 1],
        ['0,30 2 * * *', '2026-03-28T01:30:00Z', '2026-03-29T12:00:00Z', 'last before the gap, down through it', '2026-03-29T01:00:00.000Z', 1],
        ['0,30 2 * * *', '2026-03-29T01:00:00Z', '2026-03-29T12:00:00Z', 'last at the gap day’s 03:00', null],
        ['30 * * * *', '2026-03-29T00:30:00Z', '2026-03-29T01:45:00Z', 'hourly, last before the gap', '2026-03-29T01:30:00.000Z', 1],
        ['30 * * * *', '2026-03-28T23:30:00Z', '2026-03-29T03:00:00Z', 'hourly, down through the gap', '2026-03-29T02:30:00.000Z', 3],
        ['30 2 * * *', '2026-10-24T00:30:00Z', '2026-10-25T12:00:00Z', 'last the day before, down through the repeated hour', '2026-10-25T00:30:00.000Z', 1],
        ['30 2 * * *', '2026-10-24T00:30:00Z', '2026-10-25T01:45:00Z', 'restart after the second 02:30', '2026-10-25T00:30:00.000Z', 1],
        ['30 2 * * *', '2026-10-25T00:30:00Z', '2026-10-25T01:45:00Z', 'last at the first 02:30, restart after the second', null],
        ['30 2 * * *', '2026-10-25T00:30:00Z', '2026-10-26T12:00:00Z', 'last at the first 02:30, down a day', '2026-10-26T01:30:00.000Z', 1],
        [
          '0,30 2 * * *',
          '2026-10-25T00:00:00Z',
          '2026-10-25T01:45:00Z',
          'last at the first 02:00, restart after the second 02:30',
          '2026-10-25T00:30:00.000Z',
          1,
        ],
        ['0,30 2 * * *', '2026-10-25T00:30:00Z', '2026-10-25T01:15:00Z', 'last at the first 02:30, restart after the second 02:00', null],
        ['0,30 2 * * *', '2026-10-25T00:30:00Z', '2026-10-25T12:00:00Z', 'last at the first 02:30, restart after the repeated hour', null],
        ['0,30 2 * * *', '2026-10-24T00:30:00Z', '2026-10-25T12:00:00Z', 'last the day before, down through the repeated hour', '2026-10-25T00:30:00.000Z', 2],
        ['30 * * * *', '2026-10-25T00:30:00Z', '2026-10-25T01:45:00Z', 'hourly, last at the first 02:30', '2026-10-25T01:30:00.000Z', 1],
        ['30 * * * *', '2026-10-24T23:30:00Z', '2026-10-25T03:00:00Z', 'hourly, down through the repeated hour', '2026-10-25T02:30:00.000Z', 3],
      ];
      for (const [expression, last, now, situation, due, missed] of cases)
        it(`${expression}, ${situation} (last ${last}, restart ${now}): ${due ?? 'nothing'}`, async () => {
          const berlin = schedule({ schedule: expression, timezone: 'Europe/Berlin' });
          const { scheduler, runs, tasks, logger } = setup([berlin], now);
          await runs.add({
            schedule: 'nightly',
            occurrence: new Date(last),
            status: 'succeeded',
            catchUp: false,
            runId: null,
            updatedAt: new Date(last),
            error: null,
          });
          await scheduler.catchUp(new Date(now));
          expect(tasks().map((task) => [task.occurrence, task.catchUp])).to.deep.equal(due === null ? [] : [[due, true]]);
          if (due !== null) expect(logger.entries.find((entry) => entry.message.includes('(catch-up)'))?.fields).to.deep.include({ occurrence: due, missed });
        });

      it('records as missed, with catch_up false, the occurrence the loop runs on the day the clocks go forward', async () => {
        const { scheduler, runs, tasks } = setup([schedule({ schedule: '30 2 * * *', timezone: 'Europe/Berlin', catchUp: false })], '2026-03-29T12:00:00Z');
        await runs.add({
          schedule: 'nightly',
          occurrence: new Date('2026-03-25T01:30:00Z'),
          status: 'succeeded',
          catchUp: false,
          runId: null,
          updatedAt: new Date(),
          error: null,
        });
        await scheduler.catchUp(new Date('2026-03-29T12:00:00Z'));
        expect(tasks()).to.deep.equal([]);
        const [latest] = await runs.forSchedule('nightly', 1);
        expect([latest.occurrence.toISOString(), latest.status]).to.deep.equal(['2026-03-29T01:30:00.000Z', 'missed']);
      });
    });

    it('catches up a midnight the zone’s clocks skip (America/Santiago, 6 September 2026), run at 01:00 as the loop runs it', async () => {
      const santiago = schedule({ schedule: '0 0 * * *', timezone: 'America/Santiago' });
      const { scheduler, runs, tasks } = setup([santiago], '2026-09-06T10:00:00Z');
      await runs.add({
        schedule: 'nightly',
        occurrence: new Date('2026-09-05T04:00:00Z'),
        status: 'succeeded',
        catchUp: false,
        runId: null,
        updatedAt: new Date('2026-09-05T04:00:05Z'),
        error: null,
      });
      await scheduler.catchUp(new Date('2026-09-06T10:00:00Z'));
      expect(tasks().map((task) => [task.occurrence, task.catchUp])).to.deep.equal([['2026-09-06T04:00:00.000Z', true]]);
    });

    it('catches up on nothing for a schedule never recorded, or recorded at its last occurrence', async () => {
      const { scheduler, tasks, runs } = setup([schedule(), schedule({ name: 'current' })], '2026-03-04T12:00:00Z');
      await runs.add({
        schedule: 'current',
        occurrence: new Date('2026-03-04T03:00:00Z'),
        status: 'succeeded',
        catchUp: false,
        runId: null,
        updatedAt: new Date(),
        error: null,
      });
      await scheduler.catchUp(new Date('2026-03-04T12:00:00Z'));
      expect(tasks()).to.deep.equal([]);
    });
  });

  describe('catch-up only for occurrences missed while the same definition was enabled (review L3)', () => {
    type Shared = { queue: InMemoryTaskQueue; runs: InMemoryScheduleRunRepository };
    /** A replica started at `at` with `schedules` on the shared store (its start-up catch-up done), then stopped. */
    const startAt = async (schedules: Schedule[], at: string, shared?: Shared) => {
      const replica = setup(schedules, at, shared);
      await replica.scheduler.start();
      replica.scheduler.stop();
      return replica;
    };
    /** A replica that ran the nightly 03:00 of 1 March through its loop. */
    const ranFirstOfMarch = async (schedules = [schedule()]) => {
      const first = setup(schedules, '2026-03-01T02:59:30Z');
      await first.scheduler.start();
      first.clock.advance(30_000);
      await first.scheduler.tick();
      first.scheduler.stop();
      expect(first.tasks().map((task) => task.occurrence)).to.deep.equal(['2026-03-01T03:00:00.000Z']);
      return first;
    };
    const catchUps = (replica: ReturnType<typeof setup>) => replica.tasks().filter((task) => task.catchUp);
    const catchUpLines = (replica: ReturnType<typeof setup>) => replica.logger.entries.filter((entry) => entry.message.includes('catch-up'));

    it('runs nothing at once for a schedule disabled for a week and enabled again; its next occurrence runs as usual', async () => {
      const first = await ranFirstOfMarch();
      await startAt([schedule({ enabled: false })], '2026-03-02T12:00:00Z', first);
      const enabled = setup([schedule()], '2026-03-09T12:00:00Z', first);
      await enabled.scheduler.start();
      expect(catchUps(enabled)).to.deep.equal([]);
      expect(catchUpLines(enabled)).to.deep.equal([]);
      // A look shortly before 03:00 (one with nothing due), then the planned one at 03:00.
      enabled.clock.current = new Date('2026-03-10T02:59:30Z');
      await enabled.scheduler.tick();
      enabled.clock.advance(30_000);
      await enabled.scheduler.tick();
      enabled.scheduler.stop();
      expect(enabled.tasks().map((task) => [task.occurrence, task.catchUp])).to.deep.equal([
        ['2026-03-01T03:00:00.000Z', false],
        ['2026-03-10T03:00:00.000Z', false],
      ]);
      // Enabled since 9 March: a restart after days down catches up on what it missed since then, as before.
      const later = await startAt([schedule()], '2026-03-12T12:00:00Z', first);
      expect(catchUps(later).map((task) => task.occurrence)).to.deep.equal(['2026-03-12T03:00:00.000Z']);
    });

    it('runs nothing at once for a schedule disabled and enabled again by reloads, then restarted', async () => {
      const first = await ranFirstOfMarch();
      const schedules = [schedule()];
      const running = setup(schedules, '2026-03-01T12:00:00Z', first);
      await running.scheduler.start();
      schedules[0] = schedule({ enabled: false });
      await running.scheduler.refresh();
      running.clock.current = new Date('2026-03-08T12:00:00Z');
      schedules[0] = schedule();
      await running.scheduler.refresh();
      running.scheduler.stop();
      const restarted = await startAt([schedule()], '2026-03-08T12:01:00Z', first);
      expect(catchUps(restarted)).to.deep.equal([]);
    });

    it('does not catch up the old definition’s occurrence when the expression changed while the service was down', async () => {
      const first = await ranFirstOfMarch();
      const changed = await startAt([schedule({ schedule: '0 4 * * *' })], '2026-03-04T12:00:00Z', first);
      expect(catchUps(changed)).to.deep.equal([]);
      expect(changed.logger.entries.find((entry) => entry.message.includes('definition not enabled before'))?.fields).to.deep.include({
        schedule: 'nightly',
        reason: 'definition changed',
      });
      // Changed actions count the same.
      const actions = await startAt([schedule({ schedule: '0 4 * * *', actions: [{ type: 'command', command: 'false' }] })], '2026-03-06T12:00:00Z', first);
      expect(catchUps(actions)).to.deep.equal([]);
    });

    it('does not catch up for a new schedule reusing the name of a removed one', async () => {
      const first = await ranFirstOfMarch([schedule({ name: 'deploy' })]);
      const other = schedule({ name: 'deploy', actions: [{ type: 'command', command: './deploy.sh' }] });
      // Added while the service was down.
      expect(catchUps(await startAt([other], '2026-03-04T12:00:00Z', first))).to.deep.equal([]);
      // Removed (seen so at a start-up), then added again with the same definition a week later.
      const second = await ranFirstOfMarch([schedule({ name: 'deploy' })]);
      await startAt([], '2026-03-02T12:00:00Z', second);
      expect(catchUps(await startAt([schedule({ name: 'deploy' })], '2026-03-09T12:00:00Z', second))).to.deep.equal([]);
    });

    it('catches up once on the last occurrence an unchanged, enabled schedule missed while the service was down', async () => {
      const first = await ranFirstOfMarch();
      const later = await startAt([schedule()], '2026-03-04T12:00:00Z', first);
      expect(catchUps(later).map((task) => task.occurrence)).to.deep.equal(['2026-03-04T03:00:00.000Z']);
      expect(catchUpLines(later)[0]?.fields).to.deep.include({ occurrence: '2026-03-04T03:00:00.000Z', missed: 3 });
      const again = await startAt([schedule()], '2026-03-04T12:05:00Z', first);
      expect(again.tasks().filter((task) => task.catchUp)).to.have.length(1);
      expect(catchUpLines(again)).to.deep.equal([]);
    });

    it('catches up as before, once, from a record of unknown definition (recorded before fingerprints were), and judges by fingerprint after', async () => {
      const { runs, queue } = setup([]);
      const legacy = {
        schedule: 'nightly',
        occurrence: new Date('2026-03-01T03:00:00Z'),
        status: 'succeeded',
        catchUp: false,
        runId: null,
        updatedAt: new Date('2026-03-01T03:00:05Z'),
        error: null,
      } as const;
      await runs.add(legacy);
      const upgraded = await startAt([schedule()], '2026-03-04T12:00:00Z', { queue, runs });
      expect(catchUps(upgraded).map((task) => task.occurrence)).to.deep.equal(['2026-03-04T03:00:00.000Z']);
      // From then on the fingerprint is known: a changed definition is not caught up.
      const changed = await startAt([schedule({ schedule: '0 4 * * *' })], '2026-03-06T12:00:00Z', { queue, runs });
      expect(catchUps(changed)).to.have.length(1);
    });

    it('keeps the markers out of the runs the admin UI and the metrics list', async () => {
      const first = await ranFirstOfMarch();
      await startAt([schedule({ enabled: false })], '2026-03-02T12:00:00Z', first);
      await startAt([schedule()], '2026-03-09T12:00:00Z', first);
      expect((await first.runs.forSchedule('nightly', 10)).map((run) => [run.occurrence.toISOString(), run.status])).to.deep.equal([
        ['2026-03-01T03:00:00.000Z', 'queued'],
      ]);
      expect((await first.runs.latest()).get('nightly')?.status).to.equal('queued');
      expect(await first.runs.countByStatus()).to.deep.equal([{ schedule: 'nightly', status: 'queued', count: 1 }]);
      expect((await first.runs.lastSeen()).get('nightly')).to.deep.include({ status: 'baseline', occurrence: new Date('2026-03-09T12:00:00Z') });
    });
  });
});
