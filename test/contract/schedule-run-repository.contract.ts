import { expect } from 'chai';
import type { ScheduleRun, ScheduleRunRepository } from '../../src/ports/schedule-run-repository.js';

export interface ScheduleRunRepositoryHarness {
  readonly runs: ScheduleRunRepository;
  close(): Promise<void>;
}

let n = 0;
/** A fresh schedule name per call, so tests share no rows. */
const nextName = (): string => `schedule-${++n}`;

const run = (schedule: string, occurrence: string, overrides: Partial<ScheduleRun> = {}): ScheduleRun => ({
  schedule,
  occurrence: new Date(occurrence),
  status: 'queued',
  catchUp: false,
  runId: '20000000-0000-4000-8000-000000000001',
  updatedAt: new Date('2026-03-01T03:00:00.500Z'),
  error: null,
  fingerprint: null,
  ...overrides,
});

/** The behaviour every ScheduleRunRepository adapter must have. */
export const describeScheduleRunRepositoryContract = (name: string, open: () => Promise<ScheduleRunRepositoryHarness>): void => {
  describe(`ScheduleRunRepository contract: ${name}`, function () {
    this.timeout(60_000);
    let harness: ScheduleRunRepositoryHarness;
    before(async () => {
      harness = await open();
    });
    after(async () => harness?.close());

    it('records an occurrence once: add is true the first time and false for the same schedule and occurrence, also at once', async () => {
      const schedule = nextName();
      const results = await Promise.all([1, 2, 3].map(() => harness.runs.add(run(schedule, '2026-03-01T03:00:00Z'))));
      expect(results.filter(Boolean)).to.have.length(1);
      expect(await harness.runs.add(run(schedule, '2026-03-01T03:00:00Z', { status: 'missed' }))).to.equal(false);
      const [stored] = await harness.runs.forSchedule(schedule, 10);
      expect(stored.status).to.equal('queued');
    });

    it('put replaces the fields of an occurrence, or records it', async () => {
      const schedule = nextName();
      await harness.runs.put(run(schedule, '2026-03-01T03:00:00Z', { status: 'running' }));
      const finished = run(schedule, '2026-03-01T03:00:00Z', { status: 'failed', error: '1 of 2 actions did not succeed', catchUp: true, runId: null });
      await harness.runs.put(finished);
      expect(await harness.runs.forSchedule(schedule, 10)).to.deep.equal([finished]);
    });

    it('keeps the fingerprint of the definition with an occurrence; one added or put without it reads as null (unknown)', async () => {
      const schedule = nextName();
      const fingerprint = 'a'.repeat(64);
      await harness.runs.add(run(schedule, '2026-03-01T03:00:00Z', { fingerprint }));
      const { fingerprint: _, ...legacy } = run(schedule, '2026-03-02T03:00:00Z');
      await harness.runs.add(legacy);
      await harness.runs.put({ ...legacy, occurrence: new Date('2026-03-03T03:00:00Z') });
      expect((await harness.runs.forSchedule(schedule, 10)).map((r) => r.fingerprint)).to.deep.equal([null, null, fingerprint]);
      await harness.runs.put(run(schedule, '2026-03-02T03:00:00Z', { status: 'succeeded', fingerprint: 'b'.repeat(64) }));
      expect((await harness.runs.forSchedule(schedule, 10)).map((r) => r.fingerprint)).to.deep.equal([null, 'b'.repeat(64), fingerprint]);
    });

    it('gives markers (baseline, disabled) in the latest record of each schedule only: runs, latest occurrences and counts leave them out', async () => {
      const [a, b] = [nextName(), nextName()];
      await harness.runs.add(run(a, '2026-03-01T03:00:00Z', { status: 'succeeded', fingerprint: 'a'.repeat(64) }));
      await harness.runs.add(run(a, '2026-03-02T12:00:00Z', { status: 'disabled', runId: null }));
      await harness.runs.add(run(a, '2026-03-09T12:00:00Z', { status: 'baseline', runId: null, fingerprint: 'a'.repeat(64) }));
      await harness.runs.add(run(b, '2026-03-09T12:00:00Z', { status: 'baseline', runId: null, fingerprint: 'c'.repeat(64) }));
      const seen = await harness.runs.lastSeen();
      expect(seen.get(a)).to.deep.include({ status: 'baseline', fingerprint: 'a'.repeat(64) });
      expect(seen.get(a)?.occurrence.toISOString()).to.equal('2026-03-09T12:00:00.000Z');
      expect(seen.get(b)?.status).to.equal('baseline');
      const latest = await harness.runs.latest();
      expect(latest.get(a)?.status).to.equal('succeeded');
      expect(latest.has(b)).to.equal(false);
      expect((await harness.runs.forSchedule(a, 10)).map((r) => r.status)).to.deep.equal(['succeeded']);
      expect(await harness.runs.forSchedule(b, 10)).to.deep.equal([]);
      const counts = (await harness.runs.countByStatus()).filter((row) => row.schedule === a || row.schedule === b);
      expect(counts).to.deep.equal([{ schedule: a, status: 'succeeded', count: 1 }]);
    });

    it('gives the latest occurrence of each schedule, and each schedule’s occurrences latest first', async () => {
      const [a, b] = [nextName(), nextName()];
      await harness.runs.add(run(a, '2026-03-01T03:00:00Z'));
      await harness.runs.add(run(a, '2026-03-03T03:00:00Z', { status: 'missed' }));
      await harness.runs.add(run(a, '2026-03-02T03:00:00Z'));
      await harness.runs.add(run(b, '2026-03-01T00:00:00.250Z'));
      const latest = await harness.runs.latest();
      expect(latest.get(a)?.occurrence.toISOString()).to.equal('2026-03-03T03:00:00.000Z');
      expect(latest.get(a)?.status).to.equal('missed');
      expect(latest.get(b)?.occurrence.toISOString()).to.equal('2026-03-01T00:00:00.250Z');
      expect((await harness.runs.forSchedule(a, 2)).map((r) => r.occurrence.toISOString())).to.deep.equal([
        '2026-03-03T03:00:00.000Z',
        '2026-03-02T03:00:00.000Z',
      ]);
    });

    it('counts occurrences by schedule and status', async () => {
      const schedule = nextName();
      await harness.runs.add(run(schedule, '2026-03-01T03:00:00Z', { status: 'succeeded' }));
      await harness.runs.add(run(schedule, '2026-03-02T03:00:00Z', { status: 'succeeded' }));
      await harness.runs.add(run(schedule, '2026-03-03T03:00:00Z', { status: 'failed' }));
      const counts = (await harness.runs.countByStatus()).filter((row) => row.schedule === schedule);
      expect(counts.sort((x, y) => x.status.localeCompare(y.status))).to.deep.equal([
        { schedule, status: 'failed', count: 1 },
        { schedule, status: 'succeeded', count: 2 },
      ]);
    });

    it('deletes occurrences before a cutoff, oldest first, but never a schedule’s latest one', async () => {
      const [a, b] = [nextName(), nextName()];
      await harness.runs.add(run(a, '2001-01-01T00:00:00Z'));
      await harness.runs.add(run(a, '2001-01-02T00:00:00Z'));
      await harness.runs.add(run(a, '2001-01-03T00:00:00Z'));
      await harness.runs.add(run(b, '2001-01-01T12:00:00Z'));
      const cutoff = new Date('2001-02-01T00:00:00Z');
      expect(await harness.runs.deleteOlderThan(cutoff, 1000), 'deleted').to.equal(2);
      expect((await harness.runs.forSchedule(a, 10)).map((r) => r.occurrence.toISOString())).to.deep.equal(['2001-01-03T00:00:00.000Z']);
      expect(await harness.runs.forSchedule(b, 10)).to.have.length(1);
    });

    it('retention keeps a schedule’s latest occurrence and its latest record, deleting older markers', async () => {
      const schedule = nextName();
      await harness.runs.add(run(schedule, '2001-01-01T00:00:00Z', { status: 'succeeded' }));
      await harness.runs.add(run(schedule, '2001-01-02T00:00:00Z', { status: 'succeeded' }));
      await harness.runs.add(run(schedule, '2001-01-03T00:00:00Z', { status: 'disabled', runId: null }));
      await harness.runs.add(run(schedule, '2001-01-04T00:00:00Z', { status: 'baseline', runId: null }));
      await harness.runs.deleteOlderThan(new Date('2001-02-01T00:00:00Z'), 1000);
      expect((await harness.runs.forSchedule(schedule, 10)).map((r) => r.occurrence.toISOString())).to.deep.equal(['2001-01-02T00:00:00.000Z']);
      expect((await harness.runs.lastSeen()).get(schedule)?.occurrence.toISOString()).to.equal('2001-01-04T00:00:00.000Z');
    });

    it('retention counts and limits deleted records only: kept records before the expired ones never stop it', async () => {
      // Five schedules retired long ago keep their last record each, older than everything else;
      // a batch of 3 still reaches the expired occurrences after them, and says how many it deleted.
      const retired = [nextName(), nextName(), nextName(), nextName(), nextName()];
      for (const [i, schedule] of retired.entries()) await harness.runs.add(run(schedule, `2000-01-0${i + 1}T00:00:00Z`, { status: 'disabled', runId: null }));
      const active = nextName();
      for (const day of ['01', '02', '03', '04', '05']) await harness.runs.add(run(active, `2000-02-${day}T00:00:00Z`));
      const cutoff = new Date('2000-03-01T00:00:00Z');
      expect(await harness.runs.deleteOlderThan(cutoff, 3), 'first batch').to.equal(3);
      expect(await harness.runs.deleteOlderThan(cutoff, 3), 'second batch: what is left').to.equal(1);
      expect(await harness.runs.deleteOlderThan(cutoff, 3), 'nothing deletable left').to.equal(0);
      expect((await harness.runs.forSchedule(active, 10)).map((r) => r.occurrence.toISOString())).to.deep.equal(['2000-02-05T00:00:00.000Z']);
      for (const schedule of retired) expect((await harness.runs.lastSeen()).get(schedule)?.status, schedule).to.equal('disabled');
    });
  });
};
