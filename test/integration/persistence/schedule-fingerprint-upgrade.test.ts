import { createHash, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { HmacFingerprintKey } from '../../../src/adapters/crypto/hmac-fingerprint-key.js';
import { MikroOrmFingerprintKeyStore } from '../../../src/adapters/persistence/mikro-orm-fingerprint-key-store.js';
import { MikroOrmScheduleRunRepository } from '../../../src/adapters/persistence/mikro-orm-schedule-run-repository.js';
import { CronParserCronCalendar } from '../../../src/adapters/schedule/cron-parser-cron-calendar.js';
import { SCHEDULE_RUN_QUEUE, type ScheduleRunTask } from '../../../src/application/schedules/run-schedule.js';
import { Scheduler } from '../../../src/application/schedules/scheduler.js';
import { type Schedule, scheduleDefinition } from '../../../src/domain/schedules/schedule.js';
import { FixedClock } from '../../fakes/fixed-clock.js';
import { InMemoryTaskQueue } from '../../fakes/in-memory-task-queue.js';
import { ManualTimer } from '../../fakes/manual-timer.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';
import { openTestDatabase, sql, type Engine, type TestDatabase } from '../../support/databases.js';
import { describeWithPostgres } from '../../support/postgres.js';

/*
 * The first start-up after the upgrade that keyed the schedules' fingerprints, on the database a
 * version up to 2026-12-01 left: its rows hold SHA-256 of the definition (64 hex digits). An
 * unchanged schedule is still caught up and a changed one still is not; the keyed fingerprint
 * recorded from then on fits the column those rows are in.
 */
const nightly = (authorization: string): Schedule => ({
  name: 'nightly',
  schedule: '0 3 * * *',
  enabled: true,
  catchUp: true,
  actions: [{ type: 'webhook', url: 'https://ci.example.com/hook', method: 'POST', headers: { Authorization: `Bearer ${authorization}` }, vars: {} }],
});
/** The in-memory queue, its task ids UUIDs as the service's queue makes them (schedule_runs.run_id is a uuid). */
class UuidTaskQueue extends InMemoryTaskQueue {
  override async enqueue(...args: Parameters<InMemoryTaskQueue['enqueue']>): Promise<string | null> {
    return (await super.enqueue(...args)) === null ? null : randomUUID();
  }
}
const reasons = (logger: RecordingLogger): unknown[] => logger.entries.map((entry) => (entry.fields as { reason?: unknown }).reason).filter(Boolean);
const unkeyed = (schedule: Schedule): string => createHash('sha256').update(scheduleDefinition(schedule), 'utf8').digest('hex');

const suite = (engine: Engine) => {
  let opened: TestDatabase;
  before(async () => {
    opened = await openTestDatabase(engine, 'schedule-fingerprint-upgrade');
  });
  after(async () => opened?.close());
  beforeEach(async () => void (await sql(opened.database, 'delete from schedule_runs')));

  /** A row as a version up to 2026-12-01 wrote it: the 03:00 of 1 March ran, with the unkeyed fingerprint of `schedule`. */
  const legacyRow = (schedule: Schedule) =>
    sql(
      opened.database,
      `insert into schedule_runs (schedule, occurrence, status, catch_up, run_id, updated_at, error, fingerprint)
       values ('nightly', '2026-03-01T03:00:00Z', 'succeeded', false, '20000000-0000-4000-8000-000000000001', '2026-03-01T03:00:05Z', null, ?)`,
      [unkeyed(schedule)],
    );

  /** The service started at `at` with `schedule` (its start-up catch-up done), then stopped. */
  const startAt = async (schedule: Schedule, at: string) => {
    const key = new HmacFingerprintKey(await new MikroOrmFingerprintKeyStore(opened.database).key());
    const queue = new UuidTaskQueue();
    const logger = new RecordingLogger();
    const runs = new MikroOrmScheduleRunRepository(opened.replica);
    const scheduler = new Scheduler(
      { current: () => [schedule] },
      new CronParserCronCalendar(),
      queue,
      runs,
      new FixedClock(new Date(at)),
      new ManualTimer(),
      logger,
      key,
    );
    await scheduler.start();
    scheduler.stop();
    const tasks = queue.tasks.filter((task) => task.queue === SCHEDULE_RUN_QUEUE).map((task) => task.payload as ScheduleRunTask);
    return { tasks, logger };
  };
  const rows = () =>
    sql<{ occurrence: Date | string; status: string; fingerprint: string | null }>(
      opened.database,
      "select occurrence, status, fingerprint from schedule_runs where schedule = 'nightly' order by occurrence",
    );

  it('catches up an unchanged schedule from a row with the old fingerprint, and records the keyed one from then on', async () => {
    await legacyRow(nightly('hunter2'));
    const upgraded = await startAt(nightly('hunter2'), '2026-03-04T12:00:00Z');
    expect(upgraded.tasks.map((task) => [task.occurrence, task.catchUp])).to.deep.equal([['2026-03-04T03:00:00.000Z', true]]);
    expect(upgraded.logger.entries.filter((entry) => entry.level !== 'info')).to.deep.equal([]);
    expect(reasons(upgraded.logger)).to.deep.equal([]);
    const recorded = await rows();
    expect(recorded.map((row) => [new Date(row.occurrence).toISOString(), row.status])).to.deep.equal([
      ['2026-03-01T03:00:00.000Z', 'succeeded'],
      ['2026-03-04T03:00:00.000Z', 'queued'],
      ['2026-03-04T12:00:00.000Z', 'baseline'],
    ]);
    expect(recorded[0]?.fingerprint).to.equal(unkeyed(nightly('hunter2')));
    for (const row of recorded.slice(1)) expect(row.fingerprint).to.match(/^k:[0-9a-f]{62}$/);
    expect(upgraded.tasks[0]?.fingerprint).to.equal(recorded[1]?.fingerprint);
    // The next start-up judges by the keyed fingerprint: the same definition, caught up again.
    const later = await startAt(nightly('hunter2'), '2026-03-06T12:00:00Z');
    expect(later.tasks.map((task) => [task.occurrence, task.catchUp])).to.deep.equal([['2026-03-06T03:00:00.000Z', true]]);
  });

  it('does not catch up a schedule changed while the service was down, from a row with the old fingerprint', async () => {
    await legacyRow(nightly('old'));
    const upgraded = await startAt(nightly('hunter2'), '2026-03-04T12:00:00Z');
    expect(upgraded.tasks).to.deep.equal([]);
    expect(reasons(upgraded.logger)).to.deep.equal(['definition changed']);
    const latest = (await rows()).at(-1);
    expect(latest?.status).to.equal('baseline');
    expect(latest?.fingerprint).to.match(/^k:/);
  });
};

describe('schedule fingerprints after the upgrade on PGlite', () => suite('pglite'));
describeWithPostgres('schedule fingerprints after the upgrade on PostgreSQL', () => suite('postgresql'));
