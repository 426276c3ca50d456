import { expect } from 'chai';
import { JOB_POLL_LEASE, PollJobs } from '../../../../src/application/jobs/poll-jobs.js';
import type { Job, JobStatus } from '../../../../src/domain/jobs/job.js';
import type { JobRunner } from '../../../../src/ports/job-runner.js';
import { FixedClock } from '../../../fakes/fixed-clock.js';
import { InMemoryJobRepository } from '../../../fakes/in-memory-job-repository.js';
import { InMemoryPollerLease } from '../../../fakes/in-memory-poller-lease.js';
import { RecordingLogger } from '../../../fakes/recording-logger.js';

const ID = '00000000-0000-4000-8000-000000000001';

const job = (status: JobStatus): Job => ({
  id: ID,
  job: 'Fix',
  status,
  source: { kind: 'api' },
  llmProvider: null,
  llmModel: null,
  branch: `job/${ID}`,
  prUrl: null,
  runUrl: null,
  summary: null,
  error: null,
  log: null,
  createdAt: new Date('2026-11-30T10:00:00Z'),
  updatedAt: new Date('2026-11-30T10:00:00Z'),
});

/** A runner whose polls are counted, each answering "still running" (no change). */
const countingRunner = (): JobRunner & { polls: number; release?: () => void; gate?: Promise<void> } => {
  const runner = {
    kind: 'remote' as const,
    polls: 0,
    gate: undefined as Promise<void> | undefined,
    run: async () => undefined,
    poll: async () => {
      runner.polls++;
      await runner.gate;
      return null;
    },
  };
  return runner;
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
    // b holds it now and dies without giving it up: a polls again once b's lease ran out.
    await a.execute();
    expect(first.polls).to.equal(1);
    clock.advance(TTL + 1);
    await a.execute();
    expect(first.polls).to.equal(2);
    expect(lease.rows.get(JOB_POLL_LEASE)?.holder).to.equal('replica-a');
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

  it('updates a job the runner reports finished', async () => {
    const jobs = new InMemoryJobRepository();
    await jobs.add(job('running'));
    const runner: JobRunner = { kind: 'remote', run: async () => undefined, poll: async () => ({ status: 'succeeded', runUrl: 'https://code.test/runs/1' }) };
    const lease = new InMemoryPollerLease();
    expect(await new PollJobs(jobs, runner, new FixedClock(), new RecordingLogger(), undefined, { lease, holder: 'a', ttlMs: TTL }).execute()).to.equal(1);
    expect((await jobs.get(ID))?.status).to.equal('succeeded');
  });
});
