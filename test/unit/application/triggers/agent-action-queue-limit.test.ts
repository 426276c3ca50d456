import { expect } from 'chai';
import { AI_PROVIDERS, AI_PROVIDER_NAMES } from '../../../../src/adapters/ai/ai-providers.js';
import { EnvironmentSecretStore } from '../../../../src/adapters/secrets/environment-secret-store.js';
import { CreateJob } from '../../../../src/application/jobs/create-job.js';
import type { TriggerRunTask } from '../../../../src/application/triggers/fire-triggers.js';
import { RunTrigger } from '../../../../src/application/triggers/run-trigger.js';
import { triggerCatalog } from '../../../../src/container/trigger-catalog.js';
import { branchOf, type Job } from '../../../../src/domain/jobs/job.js';
import { snapshotRequest } from '../../../../src/domain/templates/request-snapshot.js';
import { validateTriggers } from '../../../../src/domain/triggers/validate-triggers.js';
import type { HttpForwarder } from '../../../../src/ports/http-forwarder.js';
import type { ShellExecutor } from '../../../../src/ports/shell-executor.js';
import { FixedClock } from '../../../fakes/fixed-clock.js';
import { InMemoryActionRunRepository } from '../../../fakes/in-memory-action-run-repository.js';
import { InMemoryInboundRequestStore } from '../../../fakes/in-memory-inbound-request-store.js';
import { InMemoryJobRepository } from '../../../fakes/in-memory-job-repository.js';
import { InMemoryTaskQueue } from '../../../fakes/in-memory-task-queue.js';
import { RecordingLogger } from '../../../fakes/recording-logger.js';
import { SequentialIds } from '../../../fakes/sequential-ids.js';

const unused = { run: () => Promise.reject(new Error('not used')), send: () => Promise.reject(new Error('not used')) };

const WAITING_ID = '40000000-0000-4000-8000-000000000001';
const waiting = (): Job => ({
  id: WAITING_ID,
  job: 'An earlier job',
  status: 'queued',
  source: { kind: 'api' },
  llmProvider: null,
  llmModel: null,
  branch: branchOf(WAITING_ID),
  prUrl: null,
  runUrl: null,
  summary: null,
  error: null,
  log: null,
  createdAt: new Date('2026-01-01T00:00:00Z'),
  updatedAt: new Date('2026-01-01T00:00:00Z'),
});

/** A trigger with an agent action and a service whose job queue takes one waiting job (JOB_QUEUE_LIMIT=1). */
const setup = () => {
  const { triggers, problems } = validateTriggers(
    [{ name: 'on-pr', watch_path: '/webhook', enabled: true, actions: [{ type: 'agent', job: 'Review {{body.pr}}' }] }],
    'TRIGGERS.json',
    triggerCatalog(),
  );
  expect(problems).to.deep.equal([]);
  const jobs = new InMemoryJobRepository();
  const queue = new InMemoryTaskQueue();
  const createJob = new CreateJob(jobs, queue, new EnvironmentSecretStore({}, AI_PROVIDERS), new SequentialIds(), new FixedClock(), new RecordingLogger(), {
    llmProviders: AI_PROVIDER_NAMES,
    defaultProvider: undefined,
    defaultModel: undefined,
    unavailableReason: undefined,
    queueLimit: { jobs: 1, setting: 'JOB_QUEUE_LIMIT' },
  });
  const launches: number[] = [];
  const launcher = { launch: (launch: Parameters<CreateJob['launch']>[0]) => (launches.push(1), createJob.launch(launch)) };
  const runs = new InMemoryActionRunRepository();
  const runner = new RunTrigger(
    triggers,
    runs,
    new InMemoryInboundRequestStore(),
    unused as unknown as ShellExecutor,
    unused as unknown as HttpForwarder,
    launcher,
    new SequentialIds(),
    new FixedClock(),
    new RecordingLogger(),
    { triggersDir: '/srv/triggers', commandTimeoutMs: 1000, commandEnv: {} },
  );
  const task: TriggerRunTask = {
    runId: '30000000-0000-4000-8000-000000000001',
    trigger: 'on-pr',
    watchPath: '/webhook',
    firedAt: '2026-01-01T00:00:00Z',
    request: JSON.stringify(snapshotRequest({ pr: 7 }, {}, {})),
  };
  return { jobs, queue, runs, runner, task, launches };
};

describe('a trigger agent action while the job queue is full (JOB_QUEUE_LIMIT)', () => {
  it('is recorded failed with the reason, naming the limit, and its run ends (nothing for the queue to retry)', async () => {
    const { jobs, queue, runs, runner, task, launches } = setup();
    await jobs.add(waiting());
    await runner.execute(task);
    expect(runs.runs).to.have.length(1);
    expect(runs.runs[0]).to.include({
      type: 'agent',
      status: 'failed',
      attempts: 0,
      error: 'Job queue full: 1 job is already waiting to run (JOB_QUEUE_LIMIT=1); try again once some have started',
    });
    expect(launches).to.have.length(1);
    expect([...jobs.jobs.keys()]).to.deep.equal([WAITING_ID]);
    expect(queue.tasks).to.deep.equal([]);
  });

  it('creates its job once the queue has room', async () => {
    const { jobs, runs, runner, task } = setup();
    await runner.execute(task);
    expect(runs.runs[0]).to.include({ type: 'agent', status: 'succeeded' });
    expect(jobs.jobs.size).to.equal(1);
  });
});
