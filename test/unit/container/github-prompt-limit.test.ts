import { expect } from 'chai';
import { Container } from 'inversify';
import { AI_PROVIDERS } from '../../../src/adapters/ai/ai-providers.js';
import { GITHUB_ACTIONS_MAX_PROMPT_BYTES } from '../../../src/adapters/codehost/github-actions-job-runner.js';
import type { Database } from '../../../src/adapters/persistence/database.js';
import { EnvironmentSecretStore } from '../../../src/adapters/secrets/environment-secret-store.js';
import type { CreateJob } from '../../../src/application/jobs/create-job.js';
import { bindJobs } from '../../../src/container/bindings/job-bindings.js';
import { loadConfig } from '../../../src/container/config.js';
import { TOKENS } from '../../../src/container/tokens.js';
import { FixedClock } from '../../fakes/fixed-clock.js';
import { InMemoryJobRepository } from '../../fakes/in-memory-job-repository.js';
import { InMemoryTaskQueue } from '../../fakes/in-memory-task-queue.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';
import { SequentialIds } from '../../fakes/sequential-ids.js';

/** The service's CreateJob as the container builds it for a gateway whose jobs run on GitHub Actions. */
const createJobOf = async (): Promise<{ create: CreateJob; jobs: InMemoryJobRepository }> => {
  const c = new Container();
  const jobs = new InMemoryJobRepository();
  c.bind(TOKENS.Database).toConstantValue({} as Database);
  c.bind(TOKENS.TaskQueue).toConstantValue(new InMemoryTaskQueue());
  c.bind(TOKENS.Clock).toConstantValue(new FixedClock());
  c.bind(TOKENS.Logger).toConstantValue(new RecordingLogger());
  c.bind(TOKENS.IdGenerator).toConstantValue(new SequentialIds());
  c.bind(TOKENS.ShellExecutor).toConstantValue({ run: async () => ({ exitCode: 0, output: '' }) } as never);
  c.bind(TOKENS.SecretStore).toConstantValue(new EnvironmentSecretStore({}, AI_PROVIDERS));
  bindJobs(c, loadConfig({ CODEHOST_TOKEN: 'ghp_x', CODEHOST_REPO: 'acme/app' }, '/srv/gw'));
  (await c.rebind(TOKENS.JobRepository)).toConstantValue(jobs);
  return { create: await c.getAsync(TOKENS.CreateJob), jobs };
};

describe('create-job on a gateway whose jobs run on GitHub Actions (CODEHOST_TOKEN, CODEHOST_REPO)', () => {
  // The template's agent step exports job.md as JOB_PROMPT: a longer prompt was accepted (200) and
  // its workflow run failed with "Argument list too long" before the agent ran
  // (test/integration/codehost/agent-job-workflow.test.ts runs the step).
  it('refuses (400) a prompt longer than the workflow template can hand its agent, and takes one of that length', async () => {
    const { create, jobs } = await createJobOf();
    const refused = await create.execute({ job: 'p'.repeat(GITHUB_ACTIONS_MAX_PROMPT_BYTES + 1) }).then(
      () => undefined,
      (error: Error & { code?: string }) => error,
    );
    expect(refused?.code).to.equal('invalid_input');
    expect(refused?.message).to.equal(
      `job is ${GITHUB_ACTIONS_MAX_PROMPT_BYTES + 1} bytes long, more than this gateway's agent takes (${GITHUB_ACTIONS_MAX_PROMPT_BYTES}): the workflow's agent gets job.md in the JOB_PROMPT environment variable (docs/templates/agent-job.yml), which the system limits`,
    );
    expect(jobs.jobs.size).to.equal(0);
    const taken = await create.execute({ job: 'p'.repeat(GITHUB_ACTIONS_MAX_PROMPT_BYTES) });
    expect(taken.status).to.equal('queued');
  });
});
