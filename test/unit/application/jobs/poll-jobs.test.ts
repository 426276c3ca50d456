import { expect } from 'chai';
import { JOB_POLL_LEASE, JOBS_PER_POLL, JOBS_PER_RENEWAL, jobsPerPoll, POLL_CALLS_PER_HOUR, PollJobs } from '../../../../src/application/jobs/poll-jobs.js';
import type { Job, JobStatus } from '../../../../src/domain/jobs/job.js';
import { RateLimitReached } from '../../../../src/domain/jobs/rate-limit-reached.js';
import type { JobRunner } from '../../../../src/ports/job-runner.js';
import { FixedClock } from '../../../fakes/fixed-clock.js';
import { InMemoryJobRepository } from '../../../fakes/in-memory-job-repository.js';
import { InMemoryPollerLease } from '../../../fakes/in-memory-poller-lease.js';
import { RecordingLogger } from '../../../fakes/recording-logger.js';

const ID = '00000000-0000-4000-8000-000000000001';

const job = (status: JobStatus, id = ID): Job => ({
  id,
  job: 'Fix',
  status,
  source: { kind: 'api' },
  llmProvider: null,
  llmModel: null,
  branch: `job/${id}`,
  prUrl: null,
  runUrl: null,
  summary: null,
  error: null,
  log: null,
  createdAt: new Date('2026-11-30T10:00:00Z'),
  updatedAt: new Date('2026-11-30T10:00:00Z'),
});

/** A runner whose polls are counted, each answering "still running" (no change). */
const countingRunner = (): JobRunner & { polls: number; gate?: Promise<void>; onPoll?: () => void } => {
  const runner = {
    kind: 'remote' as const,
    polls: 0,
    gate: undefined as Promise<void> | undefined,
    onPoll: undefined as (() => void) | undefined,
    run: async () => undefined,
    poll: async () => {
      runner.polls++;
      runner.onPoll?.();
      await runner.gate;
      return null;
    },
  };
  return runner;
};

/** Resolves once `done` holds, checking after each turn of the event loop. */
const waitUntil = async (done: () => boolean): Promise<void> => {
  while (!done()) await new Promise((resolve) => setImmediate(resolve));
};

describe('PollJobs', () => {
  const TTL = 180_000;

  it('polls on one replica only: the other, sharing the lease, asks the runner nothing', async () => {
    const jobs = new InMemoryJobRepository();
    await jobs.add(job('running'));
    const lease = new InMemoryPollerLease();
    const clock = new FixedClock(new Date('2026-11-30T10:00:00Z'));
    const first = countingRunner();
    const second = countingRunner();
    const a = new PollJobs(jobs, first, clock, new RecordingLogger(), undefined, { lease, holder: 'replica-a', ttlMs: TTL });
    const b = new PollJobs(jobs, second, clock, new RecordingLogger(), undefined, { lease, holder: 'replica-b', ttlMs: TTL });
    await a.execute();
    await b.execute();
    await a.execute();
    expect([first.polls, second.polls]).to.deep.equal([2, 0]);
  });

  it('lets another replica poll once the holder stopped, or once its lease ran out', async () => {
    const jobs = new InMemoryJobRepository();
    await jobs.add(job('running'));
    const lease = new InMemoryPollerLease();
    const clock = new FixedClock(new Date('2026-11-30T10:00:00Z'));
    const first = countingRunner();
    const second = countingRunner();
    const a = new PollJobs(jobs, first, clock, new RecordingLogger(), undefined, { lease, holder: 'replica-a', ttlMs: TTL });
    const b = new PollJobs(jobs, second, clock, new RecordingLogger(), undefined, { lease, holder: 'replica-b', ttlMs: TTL });
    await a.execute();
    await a.stop();
    await b.execute();
    expect(second.polls).to.equal(1);
    // b holds it now and dies without giving it up: c polls once b's lease ran out, not before.
    const third = countingRunner();
    const c = new PollJobs(jobs, third, clock, new RecordingLogger(), undefined, { lease, holder: 'replica-c', ttlMs: TTL });
    await c.execute();
    expect(third.polls).to.equal(0);
    clock.advance(TTL + 1);
    await c.execute();
    expect(third.polls).to.equal(1);
    expect(lease.rows.get(JOB_POLL_LEASE)?.holder).to.equal('replica-c');
  });

  it('does not start a second poll while one is still running', async () => {
    const jobs = new InMemoryJobRepository();
    await jobs.add(job('running'));
    const runner = countingRunner();
    let open!: () => void;
    runner.gate = new Promise((resolve) => (open = resolve));
    const poll = new PollJobs(jobs, runner, new FixedClock(), new RecordingLogger());
    const slow = poll.execute();
    const meanwhile = poll.execute();
    open();
    await Promise.all([slow, meanwhile]);
    expect(runner.polls).to.equal(1);
    await poll.execute();
    expect(runner.polls).to.equal(2);
  });

  it('a stop ends the poll under way before its next job, then gives the lease up for another replica', async () => {
    const jobs = new InMemoryJobRepository();
    for (let n = 1; n <= 3; n++) await jobs.add(job('running', `00000000-0000-4000-8000-00000000000${n}`));
    const lease = new InMemoryPollerLease();
    const clock = new FixedClock(new Date('2026-11-30T10:00:00Z'));
    const runner = countingRunner();
    let open!: () => void;
    runner.gate = new Promise((resolve) => (open = resolve));
    const a = new PollJobs(jobs, runner, clock, new RecordingLogger(), undefined, { lease, holder: 'replica-a', ttlMs: TTL });
    const polling = a.execute();
    await waitUntil(() => runner.polls === 1);
    const stopped = a.stop();
    open();
    await Promise.all([polling, stopped]);
    expect(runner.polls, 'asked about the first job only').to.equal(1);
    expect(lease.rows.get(JOB_POLL_LEASE)?.holder).to.equal(undefined);
    expect(await a.execute(), 'a stopped poller polls no more').to.equal(0);
    const other = countingRunner();
    await new PollJobs(jobs, other, clock, new RecordingLogger(), undefined, { lease, holder: 'replica-b', ttlMs: TTL }).execute();
    expect(other.polls).to.equal(3);
  });

  it('renews its lease during a long poll, and stops where another replica took it over', async () => {
    const jobs = new InMemoryJobRepository();
    for (let n = 0; n < 3 * JOBS_PER_RENEWAL; n++) await jobs.add(job('running', `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`));
    const lease = new InMemoryPollerLease();
    const clock = new FixedClock(new Date('2026-11-30T10:00:00Z'));
    const runner = countingRunner();
    // Each question takes a while: the whole poll outlasts the lease unless it is renewed.
    runner.onPoll = () => clock.advance(TTL / JOBS_PER_RENEWAL);
    const a = new PollJobs(jobs, runner, clock, new RecordingLogger(), undefined, { lease, holder: 'replica-a', ttlMs: TTL });
    await a.execute();
    expect(runner.polls, 'every job asked about, the lease kept').to.equal(3 * JOBS_PER_RENEWAL);
    // Replica b takes the lease over while a is half-way (a's lease ran out meanwhile): a stops there.
    const b = { lease, holder: 'replica-b', ttlMs: TTL };
    runner.polls = 0;
    runner.onPoll = () => {
      clock.advance(TTL / 2);
      void lease.acquire(JOB_POLL_LEASE, b.holder, clock.now(), b.ttlMs);
    };
    await a.execute();
    expect(runner.polls).to.be.below(JOBS_PER_RENEWAL + 1);
    expect(lease.rows.get(JOB_POLL_LEASE)?.holder).to.equal('replica-b');
  });

  it('asks about every running job, however many: at most JOBS_PER_POLL a poll, each poll going on after the last job the one before asked about', async () => {
    const jobs = new InMemoryJobRepository();
    const total = 2 * JOBS_PER_POLL + 50;
    const at = (n: number) => new Date(Date.UTC(2026, 10, 30, 10, 0, 0) + n * 1000);
    for (let n = 0; n < total; n++) await jobs.add({ ...job('running', `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`), createdAt: at(n) });
    const asked: string[][] = [];
    const runner: JobRunner = {
      kind: 'remote',
      run: async () => undefined,
      poll: async (polled) => {
        asked.at(-1)?.push(polled.id);
        return null;
      },
    };
    const poll = new PollJobs(jobs, runner, new FixedClock(), new RecordingLogger());
    const reads: number[] = [];
    for (let n = 0; n < 3; n++) {
      asked.push([]);
      const before = jobs.oldestFirstCalls;
      await poll.execute();
      reads.push(jobs.oldestFirstCalls - before);
    }
    for (const one of asked) {
      expect(one, 'a poll asks about JOBS_PER_POLL jobs').to.have.length(JOBS_PER_POLL);
      expect(new Set(one).size, 'none twice in a poll').to.equal(JOBS_PER_POLL);
    }
    expect(new Set(asked.flat()).size, 'every running job asked about within three polls').to.equal(total);
    // The oldest first; the third poll goes round, from the newest 50 to the oldest.
    expect(asked[0][0]).to.equal('00000000-0000-4000-8000-000000000000');
    expect(asked[2].slice(49, 51)).to.deep.equal([`00000000-0000-4000-8000-${String(total - 1).padStart(12, '0')}`, '00000000-0000-4000-8000-000000000000']);
    expect(Math.max(...reads), 'a poll reads a few pages, never all the jobs').to.be.at.most(Math.ceil(JOBS_PER_POLL / 100) + 2);
  });

  it('asks about each running job once per poll, oldest first, when there are fewer than JOBS_PER_POLL', async () => {
    const jobs = new InMemoryJobRepository();
    for (let n = 1; n <= 5; n++)
      await jobs.add({ ...job('running', `00000000-0000-4000-8000-00000000000${n}`), createdAt: new Date(Date.UTC(2026, 10, 30, 10, 0, n)) });
    const asked: string[] = [];
    const runner: JobRunner = {
      kind: 'remote',
      run: async () => undefined,
      poll: async (polled) => {
        asked.push(polled.id);
        return null;
      },
    };
    const poll = new PollJobs(jobs, runner, new FixedClock(), new RecordingLogger());
    await poll.execute();
    await poll.execute();
    expect(asked.map((id) => id.slice(-1)).join('')).to.equal('1234512345');
  });

  it('updates a job the runner reports finished', async () => {
    const jobs = new InMemoryJobRepository();
    await jobs.add(job('running'));
    const runner: JobRunner = { kind: 'remote', run: async () => undefined, poll: async () => ({ status: 'succeeded', runUrl: 'https://code.test/runs/1' }) };
    const lease = new InMemoryPollerLease();
    expect(await new PollJobs(jobs, runner, new FixedClock(), new RecordingLogger(), undefined, { lease, holder: 'a', ttlMs: TTL }).execute()).to.equal(1);
    expect((await jobs.get(ID))?.status).to.equal('succeeded');
  });
});

describe('PollJobs: the code host’s budget', () => {
  const T0 = new Date('2026-12-01T09:00:00Z');
  const idOf = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
  const runningJobs = async (count: number): Promise<InMemoryJobRepository> => {
    const jobs = new InMemoryJobRepository();
    for (let n = 0; n < count; n++) await jobs.add({ ...job('running', idOf(n)), createdAt: new Date(T0.getTime() - (count - n) * 1000) });
    return jobs;
  };

  it('a poll asks about as many jobs as keep an hour of polls within POLL_CALLS_PER_HOUR, at every interval CODEHOST_POLL_SECONDS allows', () => {
    expect(POLL_CALLS_PER_HOUR).to.be.at.most(3000);
    expect(jobsPerPoll(60_000), 'the default: every 60 s').to.equal(50);
    expect(jobsPerPoll(5_000), 'the shortest: every 5 s').to.equal(4);
    expect(jobsPerPoll(3_600_000), 'at most JOBS_PER_POLL').to.equal(JOBS_PER_POLL);
    for (let seconds = 5; seconds <= 86_400; seconds += seconds < 600 ? 1 : 97) {
      const perPoll = jobsPerPoll(seconds * 1000);
      // perPoll × (3 600 / seconds) polls an hour, compared in whole numbers.
      expect(perPoll * 3600, `every ${seconds} s`).to.be.at.most(POLL_CALLS_PER_HOUR * seconds);
      expect(perPoll, `every ${seconds} s`).to.be.within(1, JOBS_PER_POLL);
    }
  });

  it('with 200 running jobs polled every 60 s: 50 a poll, under POLL_CALLS_PER_HOUR in an hour, each job asked about every 4 polls', async () => {
    const jobs = await runningJobs(JOBS_PER_POLL);
    const clock = new FixedClock(T0);
    const asked: string[][] = [];
    const runner: JobRunner = {
      kind: 'remote',
      run: async () => undefined,
      poll: async (polled) => {
        asked.at(-1)?.push(polled.id);
        return null;
      },
    };
    const poll = new PollJobs(jobs, runner, clock, new RecordingLogger(), undefined, undefined, { intervalMs: 60_000 });
    expect(poll.perPoll).to.equal(50);
    for (let minute = 0; minute < 60; minute++) {
      asked.push([]);
      await poll.execute();
      clock.advance(60_000);
    }
    expect(asked.flat().length, 'calls in an hour').to.equal(3000);
    expect(asked.flat().length).to.be.at.most(POLL_CALLS_PER_HOUR);
    expect(asked.every((one) => one.length === 50)).to.equal(true);
    for (let n = 0; n + 4 <= asked.length; n += 4) expect(new Set(asked.slice(n, n + 4).flat()).size, `polls ${n} to ${n + 3}`).to.equal(JOBS_PER_POLL);
  });

  it('stops a poll when the code host’s rate limit is reached, asks nothing until it lifts (keeping the lease), then goes on with the job it was asking about', async () => {
    const jobs = await runningJobs(10);
    const clock = new FixedClock(T0);
    const lease = new InMemoryPollerLease();
    const logger = new RecordingLogger();
    const asked: string[] = [];
    let limitedAt: string | undefined = idOf(3);
    const reset = new Date(T0.getTime() + 15 * 60_000);
    const runner: JobRunner = {
      kind: 'remote',
      run: async () => undefined,
      poll: async (polled) => {
        asked.push(polled.id);
        if (polled.id === limitedAt) {
          limitedAt = undefined;
          throw new RateLimitReached(reset, 'GitHub GET /repos/acme/app/actions/workflows/agent-job.yml/runs answered 403: API rate limit exceeded');
        }
        return null;
      },
    };
    const ttlMs = 180_000;
    const a = new PollJobs(jobs, runner, clock, logger, undefined, { lease, holder: 'replica-a', ttlMs }, { intervalMs: 60_000 });
    await a.execute();
    expect(asked, 'the poll stopped at the limit').to.deep.equal([0, 1, 2, 3].map(idOf));
    const paused = logger.entries.filter((entry) => entry.level === 'warn');
    expect(paused.map((entry) => entry.message)).to.deep.equal(["job poll paused: the code host's rate limit is reached; polls resume once it lifts"]);
    expect(paused[0].fields).to.include({ until: reset.toISOString(), asked: 3 });

    // Polls until the reset ask nothing, and the lease stays with this replica.
    for (let minute = 1; minute < 15; minute++) {
      clock.advance(60_000);
      expect(await a.execute()).to.equal(0);
      expect(asked).to.have.length(4);
      expect(await lease.acquire(JOB_POLL_LEASE, 'replica-b', clock.now(), ttlMs), `minute ${minute}: another replica`).to.equal(false);
    }
    clock.advance(60_000);
    await a.execute();
    expect(asked.slice(4), 'from the job it was asking about on').to.deep.equal([3, 4, 5, 6, 7, 8, 9, 0, 1, 2].map(idOf));
    expect(logger.entries.filter((entry) => entry.level === 'warn')).to.have.length(1);
  });
});
