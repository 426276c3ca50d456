import { expect } from 'chai';
import nock from 'nock';
import { GithubActionsJobRunner, MAX_RATE_LIMIT_PAUSE_MS, RATE_LIMIT_PAUSE_MS } from '../../../../src/adapters/codehost/github-actions-job-runner.js';
import { GithubClient, GithubError } from '../../../../src/adapters/codehost/github-client.js';
import { PollJobs } from '../../../../src/application/jobs/poll-jobs.js';
import type { Job } from '../../../../src/domain/jobs/job.js';
import { RateLimitReached } from '../../../../src/domain/jobs/rate-limit-reached.js';
import { FixedClock } from '../../../fakes/fixed-clock.js';
import { InMemoryJobRepository } from '../../../fakes/in-memory-job-repository.js';
import { RecordingLogger } from '../../../fakes/recording-logger.js';

const API = 'https://api.github.test';
const RUNS = '/repos/acme/app/actions/workflows/agent-job.yml/runs';
const T0 = new Date('2026-12-01T09:00:00Z');

const running = (n: number): Job => {
  const id = `60000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
  return {
    id,
    job: 'Fix',
    status: 'running',
    source: { kind: 'api' },
    llmProvider: null,
    llmModel: null,
    branch: `job/${id}`,
    prUrl: null,
    // An event reported its run: the poll never fails it for want of one.
    runUrl: `https://github.test/acme/app/actions/runs/${n}`,
    summary: null,
    error: null,
    log: null,
    createdAt: new Date(T0.getTime() - 60_000 + n),
    updatedAt: T0,
  };
};

const runner = (clock: FixedClock, sleeps: number[] = []) =>
  new GithubActionsJobRunner(
    new GithubClient({ token: 'ghp_test', repo: 'acme/app', apiUrl: API, sleep: async (ms) => void sleeps.push(ms) }),
    'agent-job.yml',
    { clock },
  );

const stillRunning = (n: number) =>
  nock(API)
    .get(RUNS)
    .query((query) => query.branch === running(n).branch)
    .reply(200, { workflow_runs: [{ id: n, status: 'in_progress', conclusion: null, html_url: running(n).runUrl }] });

/** The runner's poll against GitHub's rate limit (nock), and the job poll that stops there. */
describe('the GitHub runner’s poll at the rate limit', () => {
  before(() => {
    if (!nock.isActive()) nock.activate();
    nock.disableNetConnect();
  });
  afterEach(() => nock.cleanAll());
  after(() => {
    nock.enableNetConnect();
    nock.restore();
  });

  it('throws RateLimitReached until x-ratelimit-reset for a 403 with x-ratelimit-remaining 0 whose reset is over a minute away', async () => {
    const clock = new FixedClock(T0);
    const reset = Math.floor(Date.now() / 1000) + 1800;
    nock(API)
      .get(RUNS)
      .query(true)
      .reply(403, { message: 'API rate limit exceeded for installation ID 1.' }, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) });
    const error = await runner(clock)
      .poll(running(1))
      .catch((e: unknown) => e);
    expect(error).to.be.instanceOf(RateLimitReached);
    const until = (error as RateLimitReached).until.getTime() - T0.getTime();
    // GitHub's reset, counted from now (the client's wall clock) onto the runner's clock.
    expect(until).to.be.within(1798_000, 1800_000);
    expect((error as RateLimitReached).message).to.equal(`GitHub GET ${RUNS} answered 403: API rate limit exceeded for installation ID 1.`);
    expect((error as RateLimitReached).cause).to.be.instanceOf(GithubError);
    expect(nock.pendingMocks()).to.deep.equal([]);
  });

  it('throws RateLimitReached for retry-after seconds (429, or a secondary limit of a few seconds, never waited through); a minute without a time given; at most an hour', async () => {
    const clock = new FixedClock(T0);
    nock(API).get(RUNS).query(true).reply(429, { message: 'Too many requests' }, { 'retry-after': '120' });
    expect(
      (
        (await runner(clock)
          .poll(running(1))
          .catch((e: unknown) => e)) as RateLimitReached
      ).until,
    ).to.deep.equal(new Date(T0.getTime() + 120_000));
    // A secondary limit without a time: one call, no back-off.
    const sleeps: number[] = [];
    nock(API).get(RUNS).query(true).reply(403, { message: 'You have exceeded a secondary rate limit.' });
    const untimed = await runner(clock, sleeps)
      .poll(running(1))
      .catch((e: unknown) => e);
    expect(sleeps).to.deep.equal([]);
    expect((untimed as RateLimitReached).until).to.deep.equal(new Date(T0.getTime() + RATE_LIMIT_PAUSE_MS));
    // A limit lifting within the minute (which the client waits through for other calls): the poll pauses instead.
    nock(API).get(RUNS).query(true).reply(403, { message: 'You have exceeded a secondary rate limit.' }, { 'retry-after': '5' });
    expect(
      (
        (await runner(clock, sleeps)
          .poll(running(1))
          .catch((e: unknown) => e)) as RateLimitReached
      ).until,
    ).to.deep.equal(new Date(T0.getTime() + 5000));
    expect(sleeps).to.deep.equal([]);
    nock(API).get(RUNS).query(true).reply(429, {}, { 'retry-after': '86400' });
    expect(
      (
        (await runner(clock)
          .poll(running(1))
          .catch((e: unknown) => e)) as RateLimitReached
      ).until,
    ).to.deep.equal(new Date(T0.getTime() + MAX_RATE_LIMIT_PAUSE_MS));
  });

  it('throws any other failure as it was: a 403 of permissions, a 5xx (asked once: one call per job and poll)', async () => {
    const clock = new FixedClock(T0);
    nock(API).get(RUNS).query(true).reply(403, { message: 'Resource not accessible by integration' });
    const refused = await runner(clock)
      .poll(running(1))
      .catch((e: unknown) => e);
    expect(refused).to.be.instanceOf(GithubError);
    expect(refused).not.to.be.instanceOf(RateLimitReached);
    // One call, not tried again: the next poll asks again (a poll makes one call per job).
    const sleeps: number[] = [];
    nock(API).get(RUNS).query(true).reply(503, { message: 'Service Unavailable' });
    const unavailable = await runner(clock, sleeps)
      .poll(running(1))
      .catch((e: unknown) => e);
    expect(unavailable).to.be.instanceOf(GithubError);
    expect((unavailable as GithubError).status).to.equal(503);
    expect(sleeps).to.deep.equal([]);
  });

  it('a job poll stops at the limit: no more calls to GitHub until the reset, then it goes on with the job that met the limit', async () => {
    const clock = new FixedClock(T0);
    const jobs = new InMemoryJobRepository();
    for (let n = 1; n <= 4; n++) await jobs.add(running(n));
    const logger = new RecordingLogger();
    const poll = new PollJobs(jobs, runner(clock), clock, logger, undefined, undefined, { intervalMs: 60_000 });
    // A call nock has no answer for fails (disableNetConnect), and the poll logs it: none may come.
    const warnings = () => logger.entries.filter((entry) => entry.level === 'warn').map((entry) => entry.message);
    stillRunning(1);
    nock(API)
      .get(RUNS)
      .query((query) => query.branch === running(2).branch)
      .reply(429, { message: 'API rate limit exceeded' }, { 'retry-after': '600', 'x-ratelimit-remaining': '0' });
    await poll.execute();
    expect(nock.pendingMocks()).to.deep.equal([]);
    expect(warnings(), 'jobs 3 and 4 not asked about').to.deep.equal(["job poll paused: the code host's rate limit is reached; polls resume once it lifts"]);
    clock.advance(540_000);
    expect(await poll.execute(), 'within the 600 s asked for').to.equal(0);
    expect(warnings()).to.have.length(1);
    clock.advance(60_000);
    for (const n of [2, 3, 4, 1]) stillRunning(n);
    await poll.execute();
    expect(nock.pendingMocks()).to.deep.equal([]);
    expect(warnings()).to.have.length(1);
  });
});
