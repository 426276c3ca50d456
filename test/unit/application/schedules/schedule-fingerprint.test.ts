import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { HmacFingerprintKey } from '../../../../src/adapters/crypto/hmac-fingerprint-key.js';
import { CronParserCronCalendar } from '../../../../src/adapters/schedule/cron-parser-cron-calendar.js';
import { SCHEDULE_RUN_QUEUE, type ScheduleRunTask } from '../../../../src/application/schedules/run-schedule.js';
import { Scheduler } from '../../../../src/application/schedules/scheduler.js';
import { type Schedule, scheduleDefinition } from '../../../../src/domain/schedules/schedule.js';
import { validateSchedules } from '../../../../src/domain/schedules/validate-schedules.js';
import { FixedClock } from '../../../fakes/fixed-clock.js';
import { InMemoryScheduleRunRepository } from '../../../fakes/in-memory-schedule-run-repository.js';
import { InMemoryTaskQueue } from '../../../fakes/in-memory-task-queue.js';
import { ManualTimer } from '../../../fakes/manual-timer.js';
import { RecordingLogger } from '../../../fakes/recording-logger.js';

/*
 * The fingerprint of a schedule's definition, kept in schedule_runs and in each occurrence's
 * task: made under the installation's key, so that whoever reads the database cannot test guesses
 * of a webhook's header value offline; and a fingerprint written before the key (SHA-256 of the
 * definition) is still recognised, so that the first start-up after the upgrade neither skips
 * catching up nor takes every schedule for a changed one.
 */

const calendar = new CronParserCronCalendar();
const KEY = new HmacFingerprintKey('k'.repeat(43));
const SECRET = 'hunter2';

const nightly = (authorization = SECRET, schedule = '0 3 * * *'): Schedule => {
  const { schedules, problems } = validateSchedules(
    [
      {
        name: 'nightly',
        schedule,
        enabled: true,
        actions: [{ type: 'webhook', url: 'https://ci.example.com/hook', headers: { Authorization: `Bearer ${authorization}` } }],
      },
    ],
    'CRONS.json',
    { llmProviders: [], cronProblem: (expression, timezone) => calendar.problem(expression, timezone) },
  );
  expect(problems).to.deep.equal([]);
  return schedules[0] as Schedule;
};

/** What versions up to 2026-12-01 recorded, and what an attacker with the database computes for a guess. */
const unkeyed = (schedule: Schedule): string => createHash('sha256').update(scheduleDefinition(schedule), 'utf8').digest('hex');

type Shared = { queue: InMemoryTaskQueue; runs: InMemoryScheduleRunRepository };
const setup = (schedules: Schedule[], at: string, shared?: Shared, key = KEY) => {
  const clock = new FixedClock(new Date(at));
  const queue = shared?.queue ?? new InMemoryTaskQueue();
  const runs = shared?.runs ?? new InMemoryScheduleRunRepository();
  const logger = new RecordingLogger();
  const scheduler = new Scheduler({ current: () => schedules }, calendar, queue, runs, clock, new ManualTimer(), logger, key);
  const tasks = () => queue.tasks.filter((task) => task.queue === SCHEDULE_RUN_QUEUE).map((task) => task.payload as ScheduleRunTask);
  return { clock, queue, runs, logger, scheduler, tasks };
};

/** The records and tasks of a scheduler that ran the 03:00 of 1 March through its loop. */
const ranFirstOfMarch = async (key = KEY) => {
  const replica = setup([nightly()], '2026-03-01T02:59:30Z', undefined, key);
  await replica.scheduler.start();
  replica.clock.advance(30_000);
  await replica.scheduler.tick();
  replica.scheduler.stop();
  expect(replica.tasks().map((task) => task.occurrence)).to.deep.equal(['2026-03-01T03:00:00.000Z']);
  return replica;
};

const recordedFingerprints = async (replica: Shared & { tasks: () => ScheduleRunTask[] }): Promise<string[]> => [
  ...(await replica.runs.forSchedule('nightly', 10)).map((run) => run.fingerprint ?? ''),
  (await replica.runs.lastSeen()).get('nightly')?.fingerprint ?? '',
  ...replica.tasks().map((task) => task.fingerprint ?? ''),
];

/** An enabled schedule's legacy record: an occurrence run by a version up to 2026-12-01, with its unkeyed fingerprint. */
const legacyRun = (fingerprint: string) =>
  ({
    schedule: 'nightly',
    occurrence: new Date('2026-03-01T03:00:00Z'),
    status: 'succeeded',
    catchUp: false,
    runId: '20000000-0000-4000-8000-000000000001',
    updatedAt: new Date('2026-03-01T03:00:05Z'),
    error: null,
    fingerprint,
  }) as const;

describe('schedule fingerprints', () => {
  it('keep nothing in schedule_runs or the tasks against which a webhook header value can be guessed offline', async () => {
    const replica = await ranFirstOfMarch();
    const recorded = await recordedFingerprints(replica);
    expect(recorded).to.not.be.empty;
    for (const guess of ['password', 'secret', 'letmein', SECRET, 'hunter3']) expect(recorded).to.not.include(unkeyed(nightly(guess)));
    for (const fingerprint of recorded) {
      expect(fingerprint).to.match(/^k:[0-9a-f]{62}$/);
      expect(fingerprint).to.not.include(SECRET);
    }
  });

  it('depend on the installation key: another installation records others for the same definition', async () => {
    const a = await ranFirstOfMarch();
    const b = await ranFirstOfMarch(new HmacFingerprintKey('o'.repeat(43)));
    const [fromA, fromB] = [await recordedFingerprints(a), await recordedFingerprints(b)];
    expect(new Set(fromA).size).to.equal(1);
    expect(fromB[0]).to.not.equal(fromA[0]);
    // One more of the same installation: the same fingerprint, so the next start-up finds the definition unchanged.
    expect(await recordedFingerprints(await ranFirstOfMarch())).to.deep.equal(fromA);
  });

  describe('written before the key (an upgrade)', () => {
    it('an unchanged schedule missed while the service was down is caught up at the first start-up, and the key’s fingerprint recorded', async () => {
      const shared = { queue: new InMemoryTaskQueue(), runs: new InMemoryScheduleRunRepository() };
      await shared.runs.add(legacyRun(unkeyed(nightly())));
      const upgraded = setup([nightly()], '2026-03-04T12:00:00Z', shared);
      await upgraded.scheduler.start();
      upgraded.scheduler.stop();
      expect(upgraded.tasks().map((task) => [task.occurrence, task.catchUp])).to.deep.equal([['2026-03-04T03:00:00.000Z', true]]);
      expect(upgraded.logger.entries.map((entry) => entry.message)).to.not.include(
        'schedule is enabled with a definition not enabled before; nothing before now is caught up',
      );
      // The latest record holds the keyed fingerprint from now on: the unkeyed one is no longer the one retention keeps.
      const seen = (await shared.runs.lastSeen()).get('nightly');
      expect(seen).to.deep.include({ status: 'baseline', occurrence: new Date('2026-03-04T12:00:00Z') });
      expect(seen?.fingerprint).to.match(/^k:/);
      // The next start-up judges by it: still caught up, once more.
      const later = setup([nightly()], '2026-03-06T12:00:00Z', shared);
      await later.scheduler.start();
      later.scheduler.stop();
      expect(
        later
          .tasks()
          .filter((task) => task.catchUp)
          .map((task) => task.occurrence),
      ).to.deep.equal(['2026-03-04T03:00:00.000Z', '2026-03-06T03:00:00.000Z']);
    });

    it('a schedule changed while the service was down is not caught up: the old fingerprint is of another definition', async () => {
      const shared = { queue: new InMemoryTaskQueue(), runs: new InMemoryScheduleRunRepository() };
      await shared.runs.add(legacyRun(unkeyed(nightly('old-secret'))));
      const upgraded = setup([nightly()], '2026-03-04T12:00:00Z', shared);
      await upgraded.scheduler.start();
      upgraded.scheduler.stop();
      expect(upgraded.tasks()).to.deep.equal([]);
      const line = upgraded.logger.entries.find((entry) => entry.message.startsWith('schedule is enabled with a definition not enabled before'));
      expect(line?.fields).to.deep.include({ schedule: 'nightly', reason: 'definition changed' });
    });

    it('a reload that leaves the schedule as it was records no baseline (its runs are not taken for another definition’s)', async () => {
      const shared = { queue: new InMemoryTaskQueue(), runs: new InMemoryScheduleRunRepository() };
      // A task enqueued before the upgrade runs after it: its record keeps the task's unkeyed fingerprint.
      await shared.runs.add(legacyRun(unkeyed(nightly())));
      const replica = setup([nightly()], '2026-03-01T12:00:00Z', shared);
      await replica.scheduler.markSeen(new Date('2026-03-01T12:00:00Z'));
      expect((await shared.runs.lastSeen()).get('nightly')?.status).to.equal('succeeded');
      expect(replica.logger.entries).to.deep.equal([]);
    });
  });
});
