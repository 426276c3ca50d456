import { expect } from 'chai';
import { CancelJob } from '../../../../src/application/jobs/cancel-job.js';
import { CreateJob, JOB_RUN_QUEUE, QUEUE_FULL_LOG_EVERY_MS, type CreateJobSettings, type JobRunTask } from '../../../../src/application/jobs/create-job.js';
import { GetJobStatus } from '../../../../src/application/jobs/get-job-status.js';
import { CANCEL_WATCH_MS, INTERRUPTED, RunJob, takenBackError } from '../../../../src/application/jobs/run-job.js';
import { RequeueStrandedJobs, STRANDED_AFTER_MS, STRANDED_PER_PASS } from '../../../../src/application/jobs/requeue-stranded-jobs.js';
import { EnvironmentSecretStore } from '../../../../src/adapters/secrets/environment-secret-store.js';
import { DomainError } from '../../../../src/domain/errors/domain-error.js';
import { applyChange, type Job } from '../../../../src/domain/jobs/job.js';
import type { JobReport, JobRunner } from '../../../../src/ports/job-runner.js';
import { FixedClock } from '../../../fakes/fixed-clock.js';
import { InMemoryJobRepository } from '../../../fakes/in-memory-job-repository.js';
import { ManualTimer } from '../../../fakes/manual-timer.js';
import { waitFor } from '../../../support/http.js';
import { InMemoryTaskQueue } from '../../../fakes/in-memory-task-queue.js';
import { RecordingLogger } from '../../../fakes/recording-logger.js';
import { SequentialIds } from '../../../fakes/sequential-ids.js';
import { AI_PROVIDERS, AI_PROVIDER_NAMES } from '../../../../src/adapters/ai/ai-providers.js';

const failure = async (promise: Promise<unknown>): Promise<DomainError> => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).to.be.instanceOf(DomainError);
  return error as DomainError;
};

const setup = (settings: Partial<CreateJobSettings> = {}) => {
  const jobs = new InMemoryJobRepository();
  const queue = new InMemoryTaskQueue();
  const clock = new FixedClock();
  const logger = new RecordingLogger();
  const create = new CreateJob(jobs, queue, new EnvironmentSecretStore({ OPENAI_API_KEY: 'sk' }, AI_PROVIDERS), new SequentialIds(), clock, logger, {
    llmProviders: AI_PROVIDER_NAMES,
    defaultProvider: undefined,
    defaultModel: undefined,
    unavailableReason: undefined,
    ...settings,
  });
  return { jobs, queue, clock, logger, create };
};

describe('CreateJob', () => {
  it('stores a queued job on its own branch and enqueues its run', async () => {
    const { create, jobs, queue } = setup();
    const result = await create.execute({ job: 'Fix it', llm_provider: 'openai', llm_model: 'gpt-x' });
    expect(result).to.deep.equal({ jobId: '00000000-0000-4000-8000-000000000001', branch: 'job/00000000-0000-4000-8000-000000000001', status: 'queued' });
    expect(jobs.jobs.get(result.jobId)).to.include({ job: 'Fix it', llmProvider: 'openai', llmModel: 'gpt-x', status: 'queued' });
    expect(queue.tasks).to.deep.equal([{ queue: JOB_RUN_QUEUE, payload: { jobId: result.jobId } }]);
  });

  it('refuses a missing job, an unknown provider and a provider without its secret, naming them', async () => {
    const { create, jobs } = setup();
    expect((await failure(create.execute({}))).message).to.equal('Missing job field');
    expect((await failure(create.execute({ job: 'x', llm_provider: 'acme' }))).message).to.equal(
      'Unknown llm_provider: acme (one of anthropic, openai, google, custom)',
    );
    expect((await failure(create.execute({ job: 'x', llm_provider: 'google' }))).message).to.equal(
      'llm_provider google has no secret configured (GOOGLE_API_KEY)',
    );
    expect(jobs.jobs.size).to.equal(0);
  });

  it('repeats at most 40 characters of an unknown provider in its 400, however long the value sent', async () => {
    const { create } = setup();
    const message = (await failure(create.execute({ job: 'x', llm_provider: 'a'.repeat(900_000) }))).message;
    expect(message).to.equal(`Unknown llm_provider: ${'a'.repeat(40)}… (one of anthropic, openai, google, custom)`);
    // Never half of a surrogate pair.
    const emoji = (await failure(create.execute({ job: 'x', llm_provider: `${'a'.repeat(39)}😀😀` }))).message;
    expect(emoji).to.equal(`Unknown llm_provider: ${'a'.repeat(39)}… (one of anthropic, openai, google, custom)`);
  });

  it('uses the default provider and model when the request names none', async () => {
    const { create, jobs } = setup({ defaultProvider: 'openai', defaultModel: 'gpt-d' });
    const { jobId } = await create.execute({ job: 'x' });
    expect(jobs.jobs.get(jobId)).to.include({ llmProvider: 'openai', llmModel: 'gpt-d' });
  });

  it('uses the default model when the request names the default provider and no model (LLM_PROVIDER=custom has no model but LLM_MODEL)', async () => {
    // A job naming `custom` without a model, on a gateway whose LLM_PROVIDER is custom and
    // LLM_MODEL llama3, was stored with no model and failed when it ran: "No model is configured
    // for custom (LLM_MODEL)", while the same request without llm_provider ran on llama3.
    const { create, jobs } = setup({ defaultProvider: 'custom', defaultModel: 'llama3' });
    const named = await create.execute({ job: 'x', llm_provider: 'custom' });
    expect(jobs.jobs.get(named.jobId)).to.include({ llmProvider: 'custom', llmModel: 'llama3' });
    const launched = await create.launch({ job: 'y', llmProvider: 'custom', source: { kind: 'trigger', name: 't' } });
    expect(jobs.jobs.get(launched)).to.include({ llmProvider: 'custom', llmModel: 'llama3' });
    // Its own model wins; another provider does not get the default provider's model.
    const own = await create.execute({ job: 'x', llm_provider: 'custom', llm_model: 'qwen' });
    expect(jobs.jobs.get(own.jobId)).to.include({ llmProvider: 'custom', llmModel: 'qwen' });
    const other = await create.execute({ job: 'x', llm_provider: 'openai' });
    expect(jobs.jobs.get(other.jobId)).to.include({ llmProvider: 'openai', llmModel: null });
  });

  it("refuses (400) a job whose provider this gateway's agent cannot run, naming why, before storing it", async () => {
    // The built-in agent's `custom` without a server URL: the job was stored, answered 200, and
    // failed when it ran ("The custom provider needs LLM_BASE_URL").
    const asked: Array<[string, string | undefined]> = [];
    const { create, jobs } = setup({
      defaultProvider: 'openai',
      defaultModel: 'gpt-d',
      providerProblem: (provider, model) => {
        asked.push([provider, model]);
        return provider === 'custom' ? 'the built-in agent has no server URL for it (set CUSTOM_BASE_URL or LLM_BASE_URL)' : undefined;
      },
    });
    const error = await failure(create.execute({ job: 'x', llm_provider: 'custom', llm_model: 'm' }));
    expect(error).to.include({
      code: 'invalid_input',
      message: 'llm_provider custom cannot run here: the built-in agent has no server URL for it (set CUSTOM_BASE_URL or LLM_BASE_URL)',
    });
    expect((await failure(create.launch({ job: 'x', llmProvider: 'custom', source: { kind: 'trigger', name: 't' } }))).code).to.equal('invalid_input');
    expect(jobs.jobs.size).to.equal(0);
    // The model the job would run on is the one asked about: its own, else the default provider's.
    await create.execute({ job: 'x' });
    await create.execute({ job: 'x', llm_provider: 'openai', llm_model: 'gpt-own' });
    expect(asked).to.deep.equal([
      ['custom', 'm'],
      ['custom', undefined],
      ['openai', 'gpt-d'],
      ['openai', 'gpt-own'],
    ]);
    expect(jobs.jobs.size).to.equal(2);
  });

  it('answers not_configured when no agent can run jobs', async () => {
    const { create } = setup({ unavailableReason: 'set JOB_AGENT_COMMAND' });
    const error = await failure(create.execute({ job: 'x' }));
    expect(error.code).to.equal('not_configured');
    expect(error.message).to.equal('Jobs are not configured: set JOB_AGENT_COMMAND');
  });

  it('refuses (400) a prompt longer than the agent takes, counted in bytes of UTF-8, from the API and from a trigger or the chat', async () => {
    const { create, jobs } = setup({ promptLimit: { bytes: 10, why: 'the agent gets it in a variable' } });
    expect((await create.execute({ job: 'x'.repeat(10) })).status).to.equal('queued');
    for (const job of ['x'.repeat(11), 'é'.repeat(6)]) {
      const error = await failure(create.execute({ job }));
      expect(error).to.include({
        code: 'invalid_input',
        message: `job is ${job === 'x'.repeat(11) ? 11 : 12} bytes long, more than this gateway's agent takes (10): the agent gets it in a variable`,
      });
      expect((await failure(create.launch({ job, source: { kind: 'trigger', name: 't' } }))).code).to.equal('invalid_input');
    }
    expect(jobs.jobs.size).to.equal(1);
  });

  it('turns a storage failure into "Failed to create job", keeping the cause', async () => {
    const { create, jobs } = setup();
    jobs.failAdd = true;
    const error = await failure(create.execute({ job: 'x' }));
    expect(error).to.include({ code: 'internal', message: 'Failed to create job' });
    expect((error.cause as Error).message).to.equal('database down');
  });

  it('marks the job failed when its run cannot be queued', async () => {
    const { create, jobs, queue } = setup();
    queue.failNext = true;
    expect((await failure(create.execute({ job: 'x' }))).message).to.equal('Failed to create job');
    expect([...jobs.jobs.values()][0]).to.include({ status: 'failed', error: 'Could not be queued' });
  });

  it('creates jobs for trigger agent actions with the trigger as source', async () => {
    const { create, jobs } = setup();
    const id = await create.launch({ job: 'Handle #42', source: { kind: 'trigger', name: 'issues' } });
    expect(jobs.jobs.get(id)?.source).to.deep.equal({ kind: 'trigger', name: 'issues' });
  });

  describe('with a queue limit (JOB_QUEUE_LIMIT)', () => {
    const limited = () => setup({ queueLimit: { jobs: 2, setting: 'JOB_QUEUE_LIMIT' } });
    const FULL = 'Job queue full: 2 jobs are already waiting to run (JOB_QUEUE_LIMIT=2); try again once some have started';

    it('refuses (busy) a job past the limit of queued jobs, naming the limit and its setting, storing and queueing nothing', async () => {
      const { create, jobs, queue } = limited();
      await create.execute({ job: 'one' });
      await create.execute({ job: 'two' });
      const error = await failure(create.execute({ job: 'three' }));
      expect(error).to.include({ code: 'busy', message: FULL });
      expect(jobs.jobs.size).to.equal(2);
      expect(queue.tasks).to.have.length(2);
    });

    it('refuses trigger and chat jobs (launch) past it too', async () => {
      const { create, jobs } = limited();
      await create.launch({ job: 'one', source: { kind: 'trigger', name: 't' } });
      await create.execute({ job: 'two' }, { kind: 'chat', thread: 'c' });
      expect(await failure(create.launch({ job: 'three', source: { kind: 'trigger', name: 't' } }))).to.include({ code: 'busy', message: FULL });
      expect(await failure(create.execute({ job: 'three' }, { kind: 'chat', thread: 'c' }))).to.include({ code: 'busy' });
      expect(jobs.jobs.size).to.equal(2);
    });

    it('counts only the jobs waiting to run: once one has started (or ended), the next is taken', async () => {
      const { create, jobs, clock } = limited();
      const first = await create.execute({ job: 'one' });
      await create.execute({ job: 'two' });
      await jobs.modify(first.jobId, (job) => applyChange(job, { status: 'running' }, clock.now()));
      expect((await create.execute({ job: 'three' })).status).to.equal('queued');
      expect((await failure(create.execute({ job: 'four' }))).code).to.equal('busy');
    });

    it('of creations made at once at the limit less one, takes one only', async () => {
      const { create, jobs } = limited();
      await create.execute({ job: 'one' });
      const outcomes = await Promise.allSettled([create.execute({ job: 'a' }), create.execute({ job: 'b' }), create.execute({ job: 'c' })]);
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).to.have.length(1);
      expect(jobs.jobs.size).to.equal(2);
    });

    it('logs a full queue at warn at most once a minute, the next line counting the refusals since', async () => {
      const { create, clock, logger } = limited();
      await create.execute({ job: 'one' });
      await create.execute({ job: 'two' });
      for (let i = 0; i < 3; i++) await failure(create.execute({ job: 'more' }));
      const warned = () => logger.entries.filter((entry) => entry.message === 'job refused: the job queue is full').map((entry) => entry.fields);
      expect(warned()).to.deep.equal([{ source: 'api', limit: 2, refused: 1 }]);
      clock.advance(QUEUE_FULL_LOG_EVERY_MS);
      await failure(create.launch({ job: 'more', source: { kind: 'trigger', name: 't' } }));
      expect(warned()).to.deep.equal([
        { source: 'api', limit: 2, refused: 1 },
        { source: 'trigger', limit: 2, refused: 3 },
      ]);
      expect(logger.entries.filter((entry) => entry.level === 'warn')).to.have.length(2);
    });

    it('without a limit, stores however many wait', async () => {
      const { create, jobs } = setup();
      for (let i = 0; i < 5; i++) await create.execute({ job: `job ${i}` });
      expect(jobs.jobs.size).to.equal(5);
    });
  });

  it('refuses a launched job whose rendered prompt holds a NUL, storing nothing', async () => {
    const { create, jobs } = setup();
    const error = await failure(create.launch({ job: 'from body: \u0000', source: { kind: 'trigger', name: 'issues' } }));
    expect(error).to.include({ code: 'invalid_input', message: 'Field job must not contain NUL characters (U+0000)' });
    expect(jobs.jobs.size).to.equal(0);
  });
});

describe('GetJobStatus', () => {
  it('finds one job, refuses a malformed id and reports an unknown one', async () => {
    const { create, jobs } = setup();
    const { jobId } = await create.execute({ job: 'x' });
    const status = new GetJobStatus(jobs);
    expect(await status.execute({ job_id: jobId })).to.deep.include({ kind: 'one' });
    expect((await failure(status.execute({ job_id: 'abc' }))).message).to.equal('job_id must be a UUID');
    const missing = await failure(status.execute({ job_id: '00000000-0000-4000-8000-000000000999' }));
    expect(missing).to.include({ code: 'not_found', message: 'Job not found' });
  });

  it('lists unfinished jobs newest first, with status and limit filters', async () => {
    const { create, jobs, clock } = setup();
    const first = await create.execute({ job: 'a' });
    clock.advance(1000);
    const second = await create.execute({ job: 'b' });
    await jobs.modify(first.jobId, (job: Job) => ({ ...job, status: 'running' }));
    const status = new GetJobStatus(jobs);
    const ids = async (query: Record<string, string>) => {
      const result = await status.execute(query);
      return result.kind === 'list' ? result.jobs.map((j) => j.id) : [];
    };
    expect(await ids({})).to.deep.equal([second.jobId, first.jobId]);
    expect(await ids({ status: 'running' })).to.deep.equal([first.jobId]);
    expect(await ids({ limit: '1' })).to.deep.equal([second.jobId]);
    expect((await failure(status.execute({ limit: '0' }))).message).to.match(/^limit must be/);
    expect((await failure(status.execute({ status: 'done' }))).message).to.match(/^status must be one of/);
  });
});

class ScriptedRunner implements JobRunner {
  readonly kind = 'scripted';
  started: string[] = [];
  constructor(private readonly behaviour: (report: JobReport, signal: AbortSignal) => Promise<void>) {}
  async run(job: Job, report: JobReport, signal: AbortSignal): Promise<void> {
    this.started.push(job.id);
    await this.behaviour(report, signal);
  }
}

describe('RunJob', () => {
  it('moves a queued job to running, then to what the runner reports', async () => {
    const { create, jobs, clock } = setup();
    const { jobId } = await create.execute({ job: 'x' });
    const runner = new ScriptedRunner(async (report) => {
      expect(jobs.jobs.get(jobId)?.status).to.equal('running');
      await report({ status: 'succeeded', summary: 'done' });
    });
    await new RunJob(jobs, runner, clock, new RecordingLogger()).execute({ jobId });
    expect(jobs.jobs.get(jobId)).to.include({ status: 'succeeded', summary: 'done' });
  });

  it('marks the job failed with the reason when the runner throws', async () => {
    const { create, jobs, clock } = setup();
    const { jobId } = await create.execute({ job: 'x' });
    await new RunJob(
      jobs,
      new ScriptedRunner(async () => {
        throw new Error('no git');
      }),
      clock,
      new RecordingLogger(),
    ).execute({ jobId });
    expect(jobs.jobs.get(jobId)).to.include({ status: 'failed', error: 'no git' });
  });

  it('marks a job found running as interrupted instead of running it twice', async () => {
    const { create, jobs, clock } = setup();
    const { jobId } = await create.execute({ job: 'x' });
    await jobs.modify(jobId, (job) => ({ ...job, status: 'running' }));
    const runner = new ScriptedRunner(async () => undefined);
    await new RunJob(jobs, runner, clock, new RecordingLogger()).execute({ jobId });
    expect(runner.started).to.deep.equal([]);
    expect(jobs.jobs.get(jobId)).to.include({ status: 'failed', error: INTERRUPTED });
  });

  it('runs a job once when two tasks of it come (one queued beside a task from before tasks had keys): a first delivery finding it running leaves it be', async () => {
    const { create, jobs, clock } = setup();
    const { jobId } = await create.execute({ job: 'x' });
    let finish = (): void => undefined;
    const runner = new ScriptedRunner(
      (report) =>
        new Promise<void>((done) => {
          finish = () => void report({ status: 'succeeded', summary: 'done' }).then(done);
        }),
    );
    const run = new RunJob(jobs, runner, clock, new RecordingLogger());
    // both take the job at once: one starts it
    const first = run.execute({ jobId }, { attempt: 1 });
    const second = run.execute({ jobId }, { attempt: 1 });
    await waitFor(() => runner.started.length === 1, 5000, 'the job to start');
    await second;
    // and one coming while it runs leaves it running
    await run.execute({ jobId }, { attempt: 1 });
    expect(jobs.jobs.get(jobId)?.status).to.equal('running');
    finish();
    await first;
    expect(runner.started).to.deep.equal([jobId]);
    expect(jobs.jobs.get(jobId)).to.include({ status: 'succeeded', summary: 'done' });
  });

  it('marks a job found running on a retried delivery (its worker died) as interrupted', async () => {
    const { create, jobs, clock } = setup();
    const { jobId } = await create.execute({ job: 'x' });
    await jobs.modify(jobId, (job) => ({ ...job, status: 'running' }));
    await new RunJob(jobs, new ScriptedRunner(async () => undefined), clock, new RecordingLogger()).execute({ jobId }, { attempt: 2 });
    expect(jobs.jobs.get(jobId)).to.include({ status: 'failed', error: INTERRUPTED });
  });

  it('hands a job over again when its task comes again and finds it running (a runner that polls: a stop may have come midway)', async () => {
    const { create, jobs, clock } = setup();
    const { jobId } = await create.execute({ job: 'x' });
    await jobs.modify(jobId, (job) => ({ ...job, status: 'running' }));
    const runner = Object.assign(new ScriptedRunner(async () => undefined), { poll: async () => null });
    await new RunJob(jobs, runner, clock, new RecordingLogger()).execute({ jobId });
    expect(runner.started).to.deep.equal([jobId]);
    expect(jobs.jobs.get(jobId)).to.include({ status: 'running', error: null });
  });

  it('skips a job cancelled while queued', async () => {
    const { create, jobs, clock } = setup();
    const { jobId } = await create.execute({ job: 'x' });
    const runner = new ScriptedRunner(async () => undefined);
    const runJob = new RunJob(jobs, runner, clock, new RecordingLogger());
    await new CancelJob(jobs, runJob, clock).execute(jobId);
    await runJob.execute({ jobId });
    expect(runner.started).to.deep.equal([]);
    expect(jobs.jobs.get(jobId)?.status).to.equal('cancelled');
  });

  it('stops a job running elsewhere where it runs when it is cancelled; a refusal there leaves it cancelled here', async () => {
    const { create, jobs, clock } = setup();
    const stopped: string[] = [];
    let refuse = false;
    const runner = Object.assign(new ScriptedRunner(async () => undefined), {
      stopElsewhere: async (job: { id: string }) => {
        if (refuse) throw new Error('GitHub POST /repos/acme/app/actions/runs/1/cancel answered 403');
        stopped.push(job.id);
      },
    });
    const logger = new RecordingLogger();
    const cancel = new CancelJob(jobs, new RunJob(jobs, runner, clock, logger), clock, runner, logger);
    const { jobId } = await create.execute({ job: 'x' });
    expect((await cancel.execute(jobId)).status).to.equal('cancelled');
    await cancel.stoppedElsewhere();
    expect(stopped).to.deep.equal([jobId]);
    refuse = true;
    const { jobId: other } = await create.execute({ job: 'y' });
    expect((await cancel.execute(other)).status).to.equal('cancelled');
    await cancel.stoppedElsewhere();
    expect(logger.entries.map((entry) => entry.message)).to.include('cancelled job could not be stopped where it runs; it is cancelled here all the same');
  });

  it('aborts a running job on cancel and keeps it cancelled whatever the runner reports after', async () => {
    const { create, jobs, clock } = setup();
    const { jobId } = await create.execute({ job: 'x' });
    let cancel: () => Promise<unknown> = async () => undefined;
    const runner = new ScriptedRunner(async (report, signal) => {
      await cancel();
      expect(signal.aborted).to.equal(true);
      await report({ status: 'failed', error: 'killed' });
    });
    const runJob = new RunJob(jobs, runner, clock, new RecordingLogger());
    cancel = () => new CancelJob(jobs, runJob, clock).execute(jobId);
    await runJob.execute({ jobId });
    expect(jobs.jobs.get(jobId)?.status).to.equal('cancelled');
  });
});

describe('RunJob: a cancellation made on another replica', () => {
  it('stops the job at the next look at its status, which it takes every few seconds while the job runs', async () => {
    const { create, jobs, clock } = setup();
    const { jobId } = await create.execute({ job: 'x' });
    const timer = new ManualTimer();
    let running: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (running = resolve));
    const runner = new ScriptedRunner(
      (_report, signal) =>
        new Promise<void>((done) => {
          running();
          signal.addEventListener('abort', () => done(), { once: true });
        }),
    );
    // This replica runs the job; the other one only changes its status, as CancelJob there does.
    const runJob = new RunJob(jobs, runner, clock, new RecordingLogger(), timer);
    const execution = runJob.execute({ jobId });
    await started;
    expect(timer.waits).to.deep.equal([CANCEL_WATCH_MS]);
    // A look while the job is not cancelled: it looks again later.
    timer.fire();
    await waitFor(() => timer.pending, 5_000, 'the next look');
    await jobs.modify(jobId, (job) => applyChange(job, { status: 'cancelled', error: 'Cancelled' }, clock.now()));
    timer.fire();
    await execution;
    expect(jobs.jobs.get(jobId)).to.include({ status: 'cancelled' });
    expect(timer.pending, 'no look after the job ended').to.equal(false);
  });

  it('schedules no further look once the job ended, also when a look was under way then', async () => {
    const { create, jobs, clock } = setup();
    const { jobId } = await create.execute({ job: 'x' });
    const timer = new ManualTimer();
    let finish: () => void = () => undefined;
    const runner = new ScriptedRunner(() => new Promise<void>((done) => (finish = done)));
    // Reads of the job after the first wait until the test lets them answer, in order.
    const waiting: Array<() => void> = [];
    const slowJobs = Object.create(jobs) as typeof jobs;
    let reads = 0;
    slowJobs.get = async (id: string) => {
      reads++;
      if (reads > 1) await new Promise<void>((go) => waiting.push(go));
      return jobs.get(id);
    };
    const runJob = new RunJob(slowJobs, runner, clock, new RecordingLogger(), timer);
    const execution = runJob.execute({ jobId });
    await waitFor(() => timer.pending, 5_000, 'the first look to be scheduled');
    timer.fire(); // the look reads the job, and waits
    await waitFor(() => waiting.length === 1, 5_000, 'the look to read the job');
    finish(); // the job ends while the look waits
    await waitFor(() => waiting.length === 2, 5_000, 'the job to end (its last read)');
    waiting[0](); // the look's read answers: the job is not cancelled
    await new Promise((resolve) => setImmediate(resolve));
    waiting[1]();
    await execution;
    expect(timer.pending, 'a look scheduled after the job ended').to.equal(false);
  });
});

describe('RunJob: what a cancelled job keeps', () => {
  it('keeps the log and summary the runner reports after the cancellation, and the job stays cancelled', async () => {
    const { create, jobs, clock } = setup();
    const { jobId } = await create.execute({ job: 'x' });
    let cancel: () => Promise<unknown> = async () => undefined;
    const runner = new ScriptedRunner(async (report) => {
      await cancel();
      await report({ log: 'step one done\n', summary: 'step one done' });
    });
    const runJob = new RunJob(jobs, runner, clock, new RecordingLogger());
    cancel = () => new CancelJob(jobs, runJob, clock).execute(jobId);
    await runJob.execute({ jobId });
    expect(jobs.jobs.get(jobId)).to.include({ status: 'cancelled', error: 'Cancelled', log: 'step one done\n', summary: 'step one done' });
  });

  it('keeps the log, summary and URLs of a run that finished just before the cancellation landed (its report then comes after it), and the job stays cancelled', async () => {
    const { create, jobs, clock } = setup();
    const { jobId } = await create.execute({ job: 'x' });
    let cancel: () => Promise<unknown> = async () => undefined;
    // The local runner's order: the agent ran, its work is committed (a cancel lands then), then the report.
    const runner = new ScriptedRunner(async (report) => {
      await cancel();
      await report({
        status: 'failed',
        error: 'The agent exited with code 1',
        log: 'agent output\nDid the thing',
        summary: 'Did the thing',
        runUrl: 'https://ci.example/run/1',
        prUrl: 'https://code.example/pull/1',
      });
    });
    const runJob = new RunJob(jobs, runner, clock, new RecordingLogger());
    cancel = () => new CancelJob(jobs, runJob, clock).execute(jobId);
    await runJob.execute({ jobId }, { attempt: 1 });
    expect(jobs.jobs.get(jobId)).to.include({
      status: 'cancelled',
      error: 'Cancelled',
      log: 'agent output\nDid the thing',
      summary: 'Did the thing',
      runUrl: 'https://ci.example/run/1',
      prUrl: 'https://code.example/pull/1',
    });
  });
});

describe('RunJob: a task the queue takes back', () => {
  it('stops the job at once when the queue takes its task back (its signal), keeps its log, and the next attempt finds a stopped run', async () => {
    const { create, jobs, clock } = setup();
    const { jobId } = await create.execute({ job: 'x' });
    // The job-run queue past its time limit (or, on PostgreSQL, a claim lost): the same take-back.
    const queue = new InMemoryTaskQueue(undefined, { runningTaskMs: { [JOB_RUN_QUEUE]: 100 } });
    const signals: AbortSignal[] = [];
    let release = (): void => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    let reported = false;
    // The agent works until it is stopped (or the test ends), then its work is committed and reported.
    const runner = new ScriptedRunner(async (report, signal) => {
      signals.push(signal);
      await Promise.race([released, new Promise<void>((done) => signal.addEventListener('abort', () => done(), { once: true }))]);
      await report(signal.aborted ? { log: 'step one\n', summary: 'step one' } : { status: 'succeeded', summary: 'done' });
      reported = true;
    });
    const runJob = new RunJob(jobs, runner, clock, new RecordingLogger());
    const attempts: number[] = [];
    // Wired as the service wires it (container/gateway.ts).
    await queue.work<JobRunTask>(JOB_RUN_QUEUE, (task, { attempt, signal }) => {
      attempts.push(attempt);
      return runJob.execute(task, { attempt, signal });
    });
    await queue.enqueue(JOB_RUN_QUEUE, { jobId });
    try {
      await waitFor(() => attempts.length >= 2 && jobs.jobs.get(jobId)?.status === 'failed', 5_000, 'the next attempt to end the job');
      expect(signals[0]?.aborted, 'the run of the task taken back was stopped').to.equal(true);
      await waitFor(() => reported, 5_000, 'the stopped run to report');
      expect(runner.started, 'run once').to.deep.equal([jobId]);
      const job = jobs.jobs.get(jobId);
      expect(job).to.include({ status: 'failed', log: 'step one\n', summary: 'step one' });
      // Whichever marked it first: the stopped run, or the next attempt finding it running.
      expect([takenBackError("the task ran past its queue's time limit of 100 ms"), INTERRUPTED]).to.include(job?.error);
    } finally {
      release();
      queue.stop();
    }
  });

  it('leaves a job queued when its task was taken back before it started: the next attempt starts it', async () => {
    const { create, jobs, clock } = setup();
    const { jobId } = await create.execute({ job: 'x' });
    const runner = new ScriptedRunner(async (report) => report({ status: 'succeeded', summary: 'done' }));
    const runJob = new RunJob(jobs, runner, clock, new RecordingLogger());
    const takenBack = new AbortController();
    takenBack.abort(new Error('the task queue took this task back'));
    await runJob.execute({ jobId }, { attempt: 1, signal: takenBack.signal });
    expect(runner.started).to.deep.equal([]);
    expect(jobs.jobs.get(jobId)?.status).to.equal('queued');
    await runJob.execute({ jobId }, { attempt: 2, signal: new AbortController().signal });
    expect(jobs.jobs.get(jobId)).to.include({ status: 'succeeded', summary: 'done' });
  });
});

describe('RunJob: a hand-over (a runner that polls) whose task the queue takes back', () => {
  it("stops the hand-over's calls (its signal aborts), leaves the job running, and the next attempt hands it over again with that attempt's signal", async () => {
    const { create, jobs, clock } = setup();
    const { jobId } = await create.execute({ job: 'x' });
    const signals: AbortSignal[] = [];
    // A hand-over that works until its signal aborts, then throws as a call given up does.
    const runner = Object.assign(
      new ScriptedRunner(async (report, signal) => {
        signals.push(signal);
        if (signals.length > 1) return report({ summary: 'Handed over' });
        await new Promise<void>((done) => signal.addEventListener('abort', () => done(), { once: true }));
        throw new Error('This operation was aborted');
      }),
      { poll: async () => null },
    );
    const runJob = new RunJob(jobs, runner, clock, new RecordingLogger());
    const takenBack = new AbortController();
    const first = runJob.execute({ jobId }, { attempt: 1, signal: takenBack.signal });
    await waitFor(() => signals.length === 1, 5_000, 'the hand-over to start');
    takenBack.abort(new Error('the task queue took this task back: its claim was lost'));
    await first;
    expect(signals[0]?.aborted, "the hand-over's signal aborted with the task's").to.equal(true);
    expect(jobs.jobs.get(jobId)).to.include({ status: 'running', error: null });
    const next = new AbortController();
    await runJob.execute({ jobId }, { attempt: 2, signal: next.signal });
    expect(runner.started).to.deep.equal([jobId, jobId]);
    expect(jobs.jobs.get(jobId)).to.include({ status: 'running', error: null, summary: 'Handed over' });
    // The second hand-over ran under the task's own signal: a take-back of that attempt stops it too.
    expect(signals[1]).to.equal(next.signal);
  });
});

describe('RunJob#abortAll', () => {
  it('stops running jobs for a stop of the service and marks them failed as interrupted', async () => {
    const { create, jobs, clock } = setup();
    const { jobId } = await create.execute({ job: 'x' });
    let runJob: RunJob;
    const runner = new ScriptedRunner(async (_report, signal) => {
      expect(runJob.abortAll()).to.equal(1);
      expect(signal.aborted).to.equal(true);
    });
    runJob = new RunJob(jobs, runner, clock, new RecordingLogger());
    await runJob.execute({ jobId });
    expect(jobs.jobs.get(jobId)).to.include({ status: 'failed', error: INTERRUPTED });
  });
});

describe('RequeueStrandedJobs', () => {
  it("queues the task of a job queued for over 2 minutes without one, under the job's key: none for a job whose task is stored, a young one or a running one", async () => {
    const { create, jobs, queue, clock } = setup();
    const logger = new RecordingLogger();
    const requeue = new RequeueStrandedJobs(jobs, queue, clock, logger);
    const { jobId: withTask } = await create.execute({ job: 'with its task' });
    // stored without its task: a process killed between the two writes
    const stranded = { ...jobs.jobs.get(withTask)!, id: '90000000-0000-4000-8000-000000000001', branch: 'job/90000000-0000-4000-8000-000000000001' };
    await jobs.add(stranded);
    const running = { ...stranded, id: '90000000-0000-4000-8000-000000000002', branch: 'job/90000000-0000-4000-8000-000000000002', status: 'running' as const };
    await jobs.add(running);
    const tasksOf = () => queue.tasks.filter((task) => task.queue === JOB_RUN_QUEUE).map((task) => (task.payload as { jobId: string }).jobId);
    expect(await requeue.execute(), 'young: its task may be on the way').to.equal(0);
    clock.advance(STRANDED_AFTER_MS + 1);
    expect(await requeue.execute()).to.equal(1);
    expect(tasksOf()).to.deep.equal([withTask, stranded.id]);
    expect(await requeue.execute(), 'once').to.equal(0);
    expect(logger.entries.filter((entry) => entry.level === 'warn').map((entry) => entry.fields)).to.deep.equal([{ jobId: stranded.id }]);
  });

  it('queues the task of every stranded job, however many are queued: at most STRANDED_PER_PASS looked at a pass, the next pass going on where it stopped', async () => {
    const { jobs, queue, clock } = setup();
    const requeue = new RequeueStrandedJobs(jobs, queue, clock, new RecordingLogger());
    const total = STRANDED_PER_PASS + 150;
    const base = clock.now().getTime();
    // All stored without their task, the oldest first.
    for (let n = 0; n < total; n++) {
      const id = `91000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
      await jobs.add({
        id,
        job: 'x',
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
        createdAt: new Date(base + n),
        updatedAt: new Date(base + n),
      });
    }
    clock.advance(STRANDED_AFTER_MS + total);
    const reads = jobs.oldestFirstCalls;
    expect(await requeue.execute(), 'the first pass: STRANDED_PER_PASS of them').to.equal(STRANDED_PER_PASS);
    expect(jobs.oldestFirstCalls - reads, 'a pass reads a few pages').to.be.at.most(Math.ceil(STRANDED_PER_PASS / 100) + 1);
    expect(await requeue.execute(), 'the next: the rest').to.equal(150);
    expect(new Set(queue.tasks.filter((task) => task.queue === JOB_RUN_QUEUE).map((task) => (task.payload as { jobId: string }).jobId)).size).to.equal(total);
    expect(await requeue.execute(), 'each once').to.equal(0);
  });
});
