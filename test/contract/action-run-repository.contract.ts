import { expect } from 'chai';
import type { ActionRun } from '../../src/domain/triggers/action-run.js';
import type { ActionRunRepository } from '../../src/ports/action-run-repository.js';

export interface ActionRunRepositoryHarness {
  readonly repository: ActionRunRepository;
  /** Another repository on the same store (another replica), when the adapter has one. */
  readonly replica?: ActionRunRepository;
  /** Empties the store between tests. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

let counter = 0;
const T0 = Date.UTC(2026, 10, 2, 8, 0, 0, 456);
const runId = (): string => `40000000-0000-4000-8000-${String(++counter).padStart(12, '0')}`;

const run = (overrides: Partial<ActionRun> = {}): ActionRun => ({
  runId: runId(),
  trigger: 'deploy',
  actionIndex: 0,
  type: 'command',
  status: 'succeeded',
  attempts: 1,
  startedAt: new Date(T0),
  finishedAt: new Date(T0 + 1500),
  error: null,
  detail: { exitCode: 0, commandMs: 12, output: 'ok\n' },
  ...overrides,
});

/** The behaviour every ActionRunRepository adapter must have. */
export const describeActionRunRepositoryContract = (name: string, open: () => Promise<ActionRunRepositoryHarness>): void => {
  describe(`ActionRunRepository contract: ${name}`, function () {
    this.timeout(60_000);
    let harness: ActionRunRepositoryHarness;
    let runs: ActionRunRepository;
    before(async () => {
      harness = await open();
    });
    beforeEach(async () => {
      await harness.reset();
      runs = harness.repository;
    });
    after(async () => harness?.close());

    it('gives back a saved run with every field, its detail as saved', async () => {
      const saved = run({
        type: 'webhook',
        status: 'failed',
        attempts: 4,
        error: 'HTTP 503 — "unavailable" ünïcode 🎉',
        detail: { httpStatus: 503, nested: { list: [1, 'two', null, true], empty: {} }, text: "it's; -- $1 ?" },
      });
      await runs.save(saved);
      expect(await runs.forRun(saved.runId)).to.deep.equal([saved]);
    });

    it('keeps the runs of one trigger run by action index, apart from other runs', async () => {
      const id = runId();
      const second = run({ runId: id, actionIndex: 1, type: 'agent', detail: { jobId: '30000000-0000-4000-8000-000000000001' } });
      const first = run({ runId: id, actionIndex: 0 });
      const third = run({ runId: id, actionIndex: 2, status: 'not_runnable', attempts: 0, error: 'no agent configured', detail: {} });
      await runs.save(second);
      await runs.save(run());
      await runs.save(third);
      await runs.save(first);
      expect(await runs.forRun(id)).to.deep.equal([first, second, third]);
    });

    it('has no runs for an unknown run id, nor for a string that is no UUID (not an error)', async () => {
      await runs.save(run());
      expect(await runs.forRun(runId())).to.deep.equal([]);
      expect(await runs.forRun('not-a-uuid')).to.deep.equal([]);
    });

    it('replaces the run saved before under the same run id and action index', async () => {
      const first = run({ status: 'failed', error: 'exit 1' });
      const again = { ...first, status: 'succeeded' as const, attempts: 2, error: null, detail: { exitCode: 0 } };
      await runs.save(first);
      await runs.save(again);
      expect(await runs.forRun(first.runId)).to.deep.equal([again]);
    });

    it('keeps one run when the same run is saved at once many times, also through another replica', async () => {
      const base = run();
      const other = harness.replica ?? runs;
      await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? runs : other).save({ ...base, attempts: i + 1 })));
      const stored = await runs.forRun(base.runId);
      expect(stored).to.have.length(1);
      expect(stored[0].attempts).to.be.within(1, 10);
    });

    describe('start (an action recorded running only when its record is as read)', () => {
      const running = (overrides: Partial<ActionRun> = {}): ActionRun =>
        run({ status: 'running', attempts: 0, finishedAt: new Date(T0), error: null, detail: { startMark: 'here' }, ...overrides });

      it('stores the start of an action with no record, and refuses a second start of it', async () => {
        const first = running();
        expect(await runs.start(first, undefined)).to.equal(true);
        expect(await runs.start({ ...first, detail: { startMark: 'elsewhere' } }, undefined)).to.equal(false);
        expect(await runs.forRun(first.runId)).to.deep.equal([first]);
      });

      it('of many starts of one action at once, through two replicas, stores exactly one; other actions starting with them are each stored', async () => {
        const base = running();
        const other = harness.replica ?? runs;
        const others = Array.from({ length: 20 }, () => running());
        const outcomes = await Promise.all([
          ...Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? runs : other).start({ ...base, detail: { startMark: `m${i}` } }, undefined)),
          ...others.map((each, i) => (i % 2 === 0 ? runs : other).start(each, undefined)),
        ]);
        expect(outcomes.slice(0, 10).filter(Boolean)).to.have.length(1);
        expect(outcomes.slice(10)).to.deep.equal(Array(20).fill(true));
        const winner = outcomes.slice(0, 10).indexOf(true);
        expect((await runs.forRun(base.runId))[0].detail).to.deep.equal({ startMark: `m${winner}` });
      });

      it('starts an action over its record when that is as read (left running, awaiting approval), not once it changed', async () => {
        const left = running({ finishedAt: new Date(T0 + 7) });
        await runs.save(left);
        const again = running({ runId: left.runId, startedAt: new Date(T0 + 60_000), finishedAt: new Date(T0 + 60_000), detail: { startMark: 'again' } });
        expect(await runs.start(again, left)).to.equal(true);
        expect(await runs.forRun(left.runId)).to.deep.equal([again]);
        // Read before that start: the record changed since, so this one is refused.
        expect(await runs.start({ ...again, detail: { startMark: 'late' } }, left)).to.equal(false);
        const finished = run({ runId: left.runId, finishedAt: new Date(T0 + 90_000) });
        await runs.save(finished);
        expect(await runs.start(running({ runId: left.runId }), again), 'finished meanwhile').to.equal(false);
        expect(await runs.forRun(left.runId)).to.deep.equal([finished]);
      });
    });

    it("keeps the fingerprints of an action and of the run's actions, in order, from its start to its outcome (a retry after a reload finds its records by them)", async () => {
      // RunTrigger keeps them in `detail`: `action`, what the action is; `actions`, the run's actions in order (one repeated).
      const ran = { action: '0123456789abcdef', actions: ['fedcba9876543210', '0123456789abcdef', '0123456789abcdef', '00000000000000ff'] };
      const started = run({ status: 'running', attempts: 0, finishedAt: new Date(T0), actionIndex: 2, detail: { startMark: 'here', ...ran } });
      expect(await runs.start(started, undefined)).to.equal(true);
      expect((await runs.forRun(started.runId))[0].detail).to.deep.equal({ startMark: 'here', ...ran });
      const other = harness.replica ?? runs;
      const finished = run({ runId: started.runId, actionIndex: 2, detail: { exitCode: 0, ...ran } });
      await other.save(finished);
      const [kept] = await runs.forRun(started.runId);
      expect(kept.detail.action).to.equal(ran.action);
      expect(kept.detail.actions).to.deep.equal(ran.actions);
      expect(kept).to.deep.equal(finished);
    });

    it('keeps the last of several saves of one run made at once through one repository, among many other saves', async () => {
      const base = run();
      // Enough other runs between the saves of one run that no single write could carry them all.
      const saves = Array.from({ length: 4 }, (_, i) => [{ ...base, attempts: i + 1 }, ...Array.from({ length: 250 }, () => run())]).flat();
      await Promise.all(saves.map((each) => runs.save(each)));
      expect((await runs.forRun(base.runId)).map((stored) => stored.attempts)).to.deep.equal([4]);
    });

    it('keeps each of many runs saved at once, each as saved', async () => {
      const many = Array.from({ length: 60 }, (_, i) => run({ actionIndex: i % 3, attempts: i + 1, detail: { exitCode: i } }));
      await Promise.all(many.map((each) => runs.save(each)));
      for (const each of many) expect(await runs.forRun(each.runId)).to.deep.equal([each]);
    });

    it('keeps an error and detail strings (at any depth) holding NUL or lone surrogates, each as U+FFFD', async () => {
      const saved = run({
        status: 'failed',
        error: 'bad\u0000byte \uD83D',
        detail: { output: 'a\u0000b \uDE00 🎉', nested: { list: ['\uD800x', 'fine'] } },
      });
      await runs.save(saved);
      const [stored] = await runs.forRun(saved.runId);
      expect(stored.error).to.equal('bad\uFFFDbyte \uFFFD');
      expect(stored.detail).to.deep.equal({ output: 'a\uFFFDb \uFFFD 🎉', nested: { list: ['\uFFFDx', 'fine'] } });
    });

    it('lists the most recent runs first by finishing time, at most `limit`', async () => {
      const at = (ms: number) => run({ startedAt: new Date(T0 + ms - 10), finishedAt: new Date(T0 + ms) });
      const middle = at(2000);
      const newest = at(3000);
      const oldest = at(1000);
      for (const one of [middle, newest, oldest]) await runs.save(one);
      expect(await runs.recent(10)).to.deep.equal([newest, middle, oldest]);
      expect(await runs.recent(2)).to.deep.equal([newest, middle]);
      expect(await runs.recent(0)).to.deep.equal([]);
    });

    it('deletes runs finished before a cutoff, oldest first, by trigger run, keeping a run with a later record whole', async () => {
      const cutoff = new Date(T0 + 5000);
      const finished = (id: string, actionIndex: number, ms: number) =>
        run({ runId: id, actionIndex, startedAt: new Date(T0 + ms - 10), finishedAt: new Date(T0 + ms) });
      const [a, b, c, d] = [runId(), runId(), runId(), runId()];
      const records = [finished(a, 0, 1000), finished(a, 1, 1001), finished(b, 0, 2000), finished(c, 0, 10_000), finished(d, 0, 3000), finished(d, 1, 6000)];
      for (const record of records) await runs.save(record);
      expect(await runs.deleteOlderThan(cutoff, 1)).to.equal(2);
      expect(await runs.forRun(a)).to.deep.equal([]);
      expect(await runs.forRun(b)).to.have.length(1);
      expect(await runs.deleteOlderThan(cutoff, 10)).to.equal(1);
      expect(await runs.deleteOlderThan(cutoff, 10)).to.equal(0);
      expect(await runs.forRun(b)).to.deep.equal([]);
      expect(await runs.forRun(d)).to.deep.equal([records[4], records[5]]);
      expect(await runs.forRun(c)).to.deep.equal([records[3]]);
    });

    it('keeps every record of a run still going (an action running or awaiting approval), however old, while deleting the runs that are over', async () => {
      const cutoff = new Date(T0 + 5000);
      const [waiting, running, over] = [runId(), runId(), runId()];
      const records = [
        run({ runId: waiting, actionIndex: 0, finishedAt: new Date(T0 + 1000) }),
        run({ runId: waiting, actionIndex: 1, status: 'awaiting_approval', finishedAt: new Date(T0 + 1001), detail: { approvalId: 'a-1' } }),
        run({ runId: running, actionIndex: 0, finishedAt: new Date(T0 + 1100) }),
        run({ runId: running, actionIndex: 1, status: 'running', finishedAt: new Date(T0 + 1101), detail: {} }),
        run({ runId: over, actionIndex: 0, finishedAt: new Date(T0 + 1200) }),
      ];
      for (const record of records) await runs.save(record);
      expect(await runs.deleteOlderThan(cutoff, 1)).to.equal(1);
      expect(await runs.deleteOlderThan(cutoff, 10)).to.equal(0);
      expect(await runs.forRun(over)).to.deep.equal([]);
      expect(await runs.forRun(waiting)).to.deep.equal(records.slice(0, 2));
      expect(await runs.forRun(running)).to.deep.equal(records.slice(2, 4));
    });

    it('counts the runs by status', async () => {
      for (const status of ['succeeded', 'failed', 'succeeded', 'not_runnable', 'succeeded'] as const) await runs.save(run({ status }));
      expect(await runs.countByStatus()).to.deep.equal({ succeeded: 3, failed: 1, not_runnable: 1 });
    });

    it('counts nothing and lists nothing when empty', async () => {
      expect(await runs.countByStatus()).to.deep.equal({});
      expect(await runs.recent(5)).to.deep.equal([]);
    });
  });
};
