import { createHash } from 'node:crypto';
import { expect } from 'chai';
import type { Job, JobStatus } from '../../src/domain/jobs/job.js';
import type { JobRepository } from '../../src/ports/job-repository.js';

export interface JobRepositoryHarness {
  readonly repository: JobRepository;
  /** Another repository on the same store (another replica), when the adapter has one. */
  readonly replica?: JobRepository;
  /** Empties the store between tests. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

let counter = 0;
const T0 = Date.UTC(2026, 10, 1, 12, 0, 0, 123);

/** A queued API job with a fresh id; `overrides` on top. */
const job = (overrides: Partial<Job> = {}): Job => {
  counter++;
  const id = overrides.id ?? `30000000-0000-4000-8000-${String(counter).padStart(12, '0')}`;
  return {
    id,
    job: `Fix the tests (${counter})`,
    status: 'queued',
    source: { kind: 'api' },
    llmProvider: null,
    llmModel: null,
    branch: `job/${id}`,
    prUrl: null,
    runUrl: null,
    summary: null,
    error: null,
    log: null,
    createdAt: new Date(T0 + counter * 1000),
    updatedAt: new Date(T0 + counter * 1000),
    ...overrides,
  };
};

const rejection = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error ?? new Error('rejected'),
  );

/** The behaviour every JobRepository adapter must have. */
export const describeJobRepositoryContract = (name: string, open: () => Promise<JobRepositoryHarness>): void => {
  describe(`JobRepository contract: ${name}`, function () {
    this.timeout(60_000);
    let harness: JobRepositoryHarness;
    let jobs: JobRepository;
    before(async () => {
      harness = await open();
    });
    beforeEach(async () => {
      await harness.reset();
      jobs = harness.repository;
    });
    after(async () => harness?.close());

    it('gets an added job back with every field, for each kind of source', async () => {
      const added = [
        job(),
        job({ source: { kind: 'trigger', name: 'nightly build' }, llmProvider: 'anthropic', llmModel: 'claude-x' }),
        job({
          source: { kind: 'chat', thread: 'telegram:-100123' },
          status: 'succeeded',
          job: 'Ünïcode 🎉 "quotes" \'and\' ; -- $1 ?',
          prUrl: 'https://github.com/o/r/pull/1',
          runUrl: 'https://github.com/o/r/actions/runs/2',
          summary: 'done',
          error: 'none',
          log: 'x'.repeat(100_000),
        }),
      ];
      for (const one of added) await jobs.add(one);
      for (const one of added) expect(await jobs.get(one.id)).to.deep.equal(one);
    });

    it('gets null for an id no job has, and for a string that is no UUID (not an error)', async () => {
      await jobs.add(job());
      expect(await jobs.get('30000000-0000-4000-8000-ffffffffffff')).to.equal(null);
      expect(await jobs.get('not-a-uuid')).to.equal(null);
      expect(await jobs.get("'; drop table jobs; --")).to.equal(null);
    });

    it('refuses a second job with the same id, keeping the first', async () => {
      const first = job();
      await jobs.add(first);
      expect(await rejection(jobs.add({ ...first, job: 'another' }))).to.be.instanceOf(Error);
      expect(await jobs.get(first.id)).to.deep.equal(first);
    });

    describe('#addWithinQueueLimit (JOB_QUEUE_LIMIT)', () => {
      it('stores a job while fewer than the limit are queued, and nothing once as many are (false); only queued jobs count', async () => {
        for (const status of ['running', 'succeeded', 'failed', 'cancelled'] as const) await jobs.add(job({ status }));
        const first = job({ source: { kind: 'trigger', name: 'issues' } });
        expect(await jobs.addWithinQueueLimit(first, 2)).to.equal(true);
        expect(await jobs.get(first.id)).to.deep.equal(first);
        expect(await jobs.addWithinQueueLimit(job(), 2)).to.equal(true);
        const third = job();
        expect(await jobs.addWithinQueueLimit(third, 2)).to.equal(false);
        expect(await jobs.get(third.id)).to.equal(null);
        expect((await jobs.countByStatus()).queued).to.equal(2);
        // One started: room for one more.
        await jobs.modify(first.id, (stored) => ({ ...stored, status: 'running' }));
        expect(await jobs.addWithinQueueLimit(third, 2)).to.equal(true);
        expect(await jobs.addWithinQueueLimit(job(), 2)).to.equal(false);
      });

      it('refuses (false) when more than the limit are queued already (a limit lowered since)', async () => {
        for (let i = 0; i < 3; i++) await jobs.add(job());
        expect(await jobs.addWithinQueueLimit(job(), 1)).to.equal(false);
        expect((await jobs.countByStatus()).queued).to.equal(3);
      });

      it('stores the texts as add does, and refuses a second job with the same id as add does, keeping the first', async () => {
        const first = job({ summary: 'a\u0000b' });
        expect(await jobs.addWithinQueueLimit(first, 10)).to.equal(true);
        expect((await jobs.get(first.id))?.summary).to.equal('a\ufffdb');
        expect(await rejection(jobs.addWithinQueueLimit({ ...first, job: 'another' }, 10))).to.be.instanceOf(Error);
        expect((await jobs.get(first.id))?.job).to.equal(first.job);
      });

      it('of creations made at once at the limit less one, also through another replica, stores one', async () => {
        const other = harness.replica ?? jobs;
        await jobs.add(job());
        const atOnce = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? jobs : other).addWithinQueueLimit(job(), 2)));
        expect(atOnce.filter(Boolean)).to.have.length(1);
        expect((await jobs.countByStatus()).queued).to.equal(2);
      });

      it('of creations made at once with none queued, also through another replica, stores exactly the limit', async () => {
        const other = harness.replica ?? jobs;
        const fromNone = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? jobs : other).addWithinQueueLimit(job(), 5)));
        expect(fromNone.filter(Boolean)).to.have.length(5);
        expect((await jobs.countByStatus()).queued).to.equal(5);
      });
    });

    it('modifies a job: stores and returns what the change made of it', async () => {
      const added = job();
      await jobs.add(added);
      const at = new Date(T0 + 86_400_000);
      const changed = await jobs.modify(added.id, (stored) => ({ ...stored, status: 'running', runUrl: 'https://example.com/run', updatedAt: at }));
      const expected = { ...added, status: 'running' as const, runUrl: 'https://example.com/run', updatedAt: at };
      expect(changed).to.deep.equal(expected);
      expect(await jobs.get(added.id)).to.deep.equal(expected);
    });

    it('stores texts holding NUL or lone surrogates (an agent output, a code host URL), each as U+FFFD, added or modified', async () => {
      const bad = 'a\u0000b \uD83D';
      const good = 'a\uFFFDb \uFFFD';
      const added = job({ job: `prompt ${bad}`, source: { kind: 'trigger', name: bad }, llmModel: bad, summary: bad });
      await jobs.add(added);
      expect(await jobs.get(added.id)).to.deep.equal({
        ...added,
        job: `prompt ${good}`,
        source: { kind: 'trigger', name: good },
        llmModel: good,
        summary: good,
      });
      const at = new Date(T0 + 86_400_000);
      const changed = await jobs.modify(added.id, (stored) => ({
        ...stored,
        status: 'succeeded',
        log: `binary\u0000output 🎉 ${bad}`,
        summary: bad,
        error: bad,
        prUrl: `https://example.com/${bad}`,
        runUrl: bad,
        updatedAt: at,
      }));
      const expected = {
        ...added,
        job: `prompt ${good}`,
        source: { kind: 'trigger' as const, name: good },
        llmModel: good,
        status: 'succeeded' as const,
        log: `binary\uFFFDoutput 🎉 ${good}`,
        summary: good,
        error: good,
        prUrl: `https://example.com/${good}`,
        runUrl: good,
        updatedAt: at,
      };
      expect(changed).to.deep.equal(expected);
      expect(await jobs.get(added.id)).to.deep.equal(expected);
    });

    it('modifying an unknown id (or no UUID) returns null without calling the change', async () => {
      let called = 0;
      const change = (stored: Job): Job => {
        called++;
        return stored;
      };
      expect(await jobs.modify('30000000-0000-4000-8000-ffffffffffff', change)).to.equal(null);
      expect(await jobs.modify('not-a-uuid', change)).to.equal(null);
      expect(called).to.equal(0);
    });

    it('rethrows what the change throws and stores nothing', async () => {
      const added = job();
      await jobs.add(added);
      const thrown = new Error('illegal move');
      const error = await rejection(
        jobs.modify(added.id, () => {
          throw thrown;
        }),
      );
      expect(error).to.equal(thrown);
      expect(await jobs.get(added.id)).to.deep.equal(added);
    });

    it('applies concurrent modifications of one job one after the other, none lost (also through another replica)', async () => {
      const added = job({ log: '' });
      await jobs.add(added);
      const other = harness.replica ?? jobs;
      await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? jobs : other).modify(added.id, (stored) => ({ ...stored, log: `${stored.log ?? ''}${i},` }))),
      );
      const entries = ((await jobs.get(added.id))?.log ?? '').split(',').filter((entry) => entry !== '');
      expect(entries.map(Number).sort((a, b) => a - b)).to.deep.equal(Array.from({ length: 20 }, (_, i) => i));
    });

    it('lists the jobs in the given statuses, newest first (ties by id, highest first), at most `limit`', async () => {
      const same = new Date(T0 + 5_000_000);
      const old = job({ createdAt: new Date(T0) });
      const tieLow = job({ id: '30000000-0000-4000-8000-a00000000001', createdAt: same });
      const tieHigh = job({ id: '30000000-0000-4000-8000-a00000000002', createdAt: same });
      const running = job({ status: 'running', createdAt: new Date(T0 + 6_000_000) });
      const done = job({ status: 'succeeded', createdAt: new Date(T0 + 7_000_000) });
      for (const one of [tieHigh, done, old, running, tieLow]) await jobs.add(one);
      const ids = async (statuses: JobStatus[], limit: number) => (await jobs.list({ statuses, limit })).map((listed) => listed.id);
      expect(await ids(['queued', 'running'], 10)).to.deep.equal([running.id, tieHigh.id, tieLow.id, old.id]);
      expect(await ids(['queued', 'running'], 2)).to.deep.equal([running.id, tieHigh.id]);
      expect(await ids(['succeeded'], 10)).to.deep.equal([done.id]);
      expect(await ids(['cancelled'], 10)).to.deep.equal([]);
      expect(await ids([], 10)).to.deep.equal([]);
      expect((await jobs.list({ statuses: ['succeeded'], limit: 1 }))[0]).to.deep.equal(done);
    });

    it('lists the jobs newest first page after page by the last one listed (before): each once, however many share a millisecond across the pages', async () => {
      const same = new Date(T0 + 9_000_000);
      // 20 jobs created in one millisecond, ids in no particular order (hex letters and digits
      // anywhere: the database's order of uuids is the order of their lower-case text).
      const idOf = (n: number): string => {
        const hex = createHash('sha256').update(`tied ${n}`).digest('hex');
        return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
      };
      const tied = Array.from({ length: 20 }, (_, n) => job({ id: idOf(n), status: n % 4 === 0 ? 'running' : 'queued', createdAt: same }));
      const older = [job({ createdAt: new Date(same.getTime() - 1) }), job({ status: 'running', createdAt: new Date(T0) })];
      const newer = [job({ createdAt: new Date(same.getTime() + 1) }), job({ createdAt: new Date(same.getTime() + 60_000) })];
      // Jobs in other statuses, also in that millisecond: never listed.
      const others = [job({ status: 'succeeded', createdAt: same }), job({ status: 'failed', createdAt: same })];
      for (const one of [...tied.slice(10), ...others, ...newer, ...older, ...tied.slice(0, 10)]) await jobs.add(one);
      const statuses: JobStatus[] = ['queued', 'running'];
      const byId = (a: Job, b: Job): number => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
      const all = [newer[1], newer[0], ...tied.slice().sort(byId), older[0], older[1]].map((one) => one.id);
      for (const limit of [1, 3, 7, 20, 50]) {
        const listed: string[] = [];
        let before: { createdAt: Date; id: string } | undefined;
        for (let pages = 0; pages <= all.length; pages++) {
          const page = await jobs.list({ statuses, before, limit });
          listed.push(...page.map((one) => one.id));
          if (page.length < limit) break;
          const last = page[page.length - 1];
          before = { createdAt: last.createdAt, id: last.id };
        }
        expect(listed, `pages of ${limit}`).to.deep.equal(all);
      }
      // A page that begins between two jobs created at the same time.
      const sorted = tied.slice().sort(byId);
      expect((await jobs.list({ statuses, before: { createdAt: same, id: sorted[4].id }, limit: 3 })).map((one) => one.id)).to.deep.equal(
        sorted.slice(5, 8).map((one) => one.id),
      );
      expect((await jobs.list({ statuses: ['running'], before: { createdAt: same, id: sorted[0].id }, limit: 50 })).map((one) => one.id)).to.deep.equal(
        [...sorted.slice(1).filter((one) => one.status === 'running'), older[1]].map((one) => one.id),
      );
      expect(await jobs.list({ statuses, before: { createdAt: new Date(T0), id: older[1].id }, limit: 10 })).to.deep.equal([]);
    });

    it('lists the jobs in the given statuses oldest first (ties by id, lowest first), page after page by the last one listed, created before a time when given', async () => {
      const same = new Date(T0 + 5_000_000);
      // More jobs than a page, three of them created at the same time (the ids order them).
      const queued = Array.from({ length: 7 }, (_, n) => job({ createdAt: new Date(T0 + n * 1000) }));
      const tied = ['30000000-0000-4000-8000-b00000000003', '30000000-0000-4000-8000-b00000000001', '30000000-0000-4000-8000-b00000000002'].map((id) =>
        job({ id, createdAt: same }),
      );
      const running = job({ status: 'running', createdAt: new Date(T0 + 2500) });
      const done = job({ status: 'succeeded', createdAt: new Date(T0 + 500) });
      for (const one of [...tied, done, ...queued.slice().reverse(), running]) await jobs.add(one);
      const statuses: JobStatus[] = ['queued', 'running'];
      const all = [queued[0], queued[1], queued[2], running, queued[3], queued[4], queued[5], queued[6], ...[tied[1], tied[2], tied[0]]].map((one) => one.id);
      const listed: string[] = [];
      let after: { createdAt: Date; id: string } | undefined;
      for (let pages = 0; pages < 10; pages++) {
        const page = await jobs.listOldestFirst({ statuses, after, limit: 3 });
        listed.push(...page.map((one) => one.id));
        if (page.length < 3) break;
        const last = page[page.length - 1];
        after = { createdAt: last.createdAt, id: last.id };
      }
      expect(listed).to.deep.equal(all);
      // A page that begins between two jobs created at the same time.
      expect((await jobs.listOldestFirst({ statuses, after: { createdAt: same, id: tied[1].id }, limit: 5 })).map((one) => one.id)).to.deep.equal([
        tied[2].id,
        tied[0].id,
      ]);
      expect((await jobs.listOldestFirst({ statuses, createdBefore: new Date(T0 + 2500), limit: 10 })).map((one) => one.id)).to.deep.equal(
        queued.slice(0, 3).map((one) => one.id),
      );
      expect((await jobs.listOldestFirst({ statuses: ['succeeded'], limit: 10 }))[0]).to.deep.equal(done);
      expect(await jobs.listOldestFirst({ statuses: [], limit: 10 })).to.deep.equal([]);
    });

    it('counts the jobs in each status (a status without jobs is absent or 0)', async () => {
      for (const status of ['queued', 'queued', 'running', 'failed', 'queued'] as const) await jobs.add(job({ status }));
      const counts = await jobs.countByStatus();
      expect({ queued: counts.queued, running: counts.running, failed: counts.failed }).to.deep.equal({ queued: 3, running: 1, failed: 1 });
      expect(counts.succeeded ?? 0).to.equal(0);
      expect(counts.cancelled ?? 0).to.equal(0);
    });

    it('lists the finished chat jobs whose notice is not marked queued, changed before the time, oldest change first (ties by id), at most `limit`', async () => {
      const chat = { kind: 'chat', thread: 'telegram:42' } as const;
      const at = (seconds: number) => new Date(T0 + seconds * 1000);
      const oldest = job({ source: chat, status: 'failed', updatedAt: at(10) });
      const tieHigh = job({ id: '30000000-0000-4000-8000-b00000000002', source: chat, status: 'succeeded', updatedAt: at(20) });
      const tieLow = job({ id: '30000000-0000-4000-8000-b00000000001', source: chat, status: 'cancelled', updatedAt: at(20) });
      const young = job({ source: chat, status: 'succeeded', updatedAt: at(30) });
      const running = job({ source: chat, status: 'running', updatedAt: at(5) });
      const queued = job({ source: chat, status: 'queued', updatedAt: at(5) });
      const api = job({ status: 'succeeded', updatedAt: at(5) });
      const trigger = job({ source: { kind: 'trigger', name: 'nightly' }, status: 'failed', updatedAt: at(5) });
      for (const one of [young, tieLow, running, api, oldest, queued, trigger, tieHigh]) await jobs.add(one);
      const ids = async (changedBefore: Date, limit: number) => (await jobs.listAwaitingNotice({ changedBefore, limit })).map((listed) => listed.id);
      expect(await ids(at(30), 10)).to.deep.equal([oldest.id, tieLow.id, tieHigh.id]);
      expect(await ids(at(31), 2)).to.deep.equal([oldest.id, tieLow.id]);
      expect(await ids(at(10), 10)).to.deep.equal([]);
      expect((await jobs.listAwaitingNotice({ changedBefore: at(11), limit: 1 }))[0]).to.deep.equal(oldest);
    });

    it('lists a job marked as notified no more, also after later changes, and through another replica; marking changes no field of the job', async () => {
      const chat = { kind: 'chat', thread: 'telegram:42' } as const;
      const marked = job({ source: chat, status: 'running' });
      const other = job({ source: chat, status: 'succeeded' });
      await jobs.add(marked);
      await jobs.add(other);
      const later = new Date(T0 + 86_400_000);
      const finished = await jobs.modify(marked.id, (stored) => ({ ...stored, status: 'succeeded', updatedAt: later }));
      const ids = async (repository: JobRepository) =>
        (await repository.listAwaitingNotice({ changedBefore: new Date(T0 + 2 * 86_400_000), limit: 10 })).map((listed) => listed.id);
      expect(await ids(jobs)).to.deep.equal([other.id, marked.id]);
      await jobs.markNoticeQueued(marked.id, new Date(T0 + 86_400_500));
      await jobs.markNoticeQueued(marked.id, new Date(T0 + 86_401_000));
      expect(await ids(jobs)).to.deep.equal([other.id]);
      expect(await ids(harness.replica ?? jobs)).to.deep.equal([other.id]);
      expect(await jobs.get(marked.id)).to.deep.equal(finished);
      // A later change (a pull request link stored after the end) keeps the mark.
      await (harness.replica ?? jobs).modify(marked.id, (stored) => ({
        ...stored,
        prUrl: 'https://github.com/o/r/pull/3',
        updatedAt: new Date(T0 + 86_402_000),
      }));
      expect(await ids(jobs)).to.deep.equal([other.id]);
      // Unknown ids and strings that are no UUID are ignored.
      await jobs.markNoticeQueued('30000000-0000-4000-8000-ffffffffffff', later);
      await jobs.markNoticeQueued('not-a-uuid', later);
      expect(await jobs.get('30000000-0000-4000-8000-ffffffffffff')).to.equal(null);
      expect(await ids(jobs)).to.deep.equal([other.id]);
    });

    it('counts nothing and lists nothing when empty', async () => {
      const counts = await jobs.countByStatus();
      expect(Object.values(counts).filter((count) => count !== 0)).to.deep.equal([]);
      expect(await jobs.list({ statuses: ['queued'], limit: 5 })).to.deep.equal([]);
      expect(await jobs.listAwaitingNotice({ changedBefore: new Date(T0 + 86_400_000), limit: 5 })).to.deep.equal([]);
    });

    describe("#recordMergeCommits and #jobOfMergeCommit (an auto-merge's commits: its events run no agent action)", () => {
      const HEAD = 'a1'.repeat(20);
      const MERGE = 'b2'.repeat(20);
      const SHA256 = 'c3'.repeat(32);

      it('finds the job of any recorded commit among those asked, in any case, also through another replica; none for others', async () => {
        const merged = job({ status: 'succeeded' });
        await jobs.add(merged);
        expect(await jobs.jobOfMergeCommit([HEAD])).to.equal(null);
        await jobs.recordMergeCommits(merged.id, [HEAD.toUpperCase()], new Date(T0));
        await jobs.recordMergeCommits(merged.id, [MERGE, SHA256], new Date(T0 + 1000));
        expect(await jobs.jobOfMergeCommit(['f'.repeat(40), HEAD])).to.equal(merged.id);
        expect(await jobs.jobOfMergeCommit([MERGE.toUpperCase()])).to.equal(merged.id);
        expect(await (harness.replica ?? jobs).jobOfMergeCommit([SHA256])).to.equal(merged.id);
        expect(await jobs.jobOfMergeCommit(['f'.repeat(40)])).to.equal(null);
        expect(await jobs.jobOfMergeCommit([])).to.equal(null);
        // Recording changes none of the job's fields.
        expect(await jobs.get(merged.id)).to.deep.equal(merged);
      });

      it('keeps the first record of a commit (a second attempt, another job), and records no string that is no commit id', async () => {
        const first = job({ status: 'succeeded' });
        const second = job({ status: 'succeeded' });
        await jobs.add(first);
        await jobs.add(second);
        await jobs.recordMergeCommits(first.id, [HEAD], new Date(T0));
        await jobs.recordMergeCommits(first.id, [HEAD, MERGE], new Date(T0 + 1000));
        await (harness.replica ?? jobs).recordMergeCommits(second.id, [MERGE], new Date(T0 + 2000));
        expect(await jobs.jobOfMergeCommit([MERGE])).to.equal(first.id);
        await jobs.recordMergeCommits(second.id, ['m3rg3d', 'abc', `${HEAD}0`, '', "'; drop table jobs; --"], new Date(T0));
        expect(await jobs.jobOfMergeCommit(['m3rg3d', 'abc', `${HEAD}0`, ''])).to.equal(null);
        await jobs.recordMergeCommits(second.id, [], new Date(T0));
        expect(await jobs.get(second.id)).to.deep.equal(second);
      });
    });
  });
};
