import { AI_PROVIDER_NAMES, AI_PROVIDERS } from '../../src/adapters/ai/ai-providers.js';
import { EnvironmentSecretStore } from '../../src/adapters/secrets/environment-secret-store.js';
import { CreateJob } from '../../src/application/jobs/create-job.js';
import { FixedClock } from '../fakes/fixed-clock.js';
import { InMemoryJobRepository } from '../fakes/in-memory-job-repository.js';
import { InMemoryTaskQueue } from '../fakes/in-memory-task-queue.js';
import { RecordingLogger } from '../fakes/recording-logger.js';
import { SequentialIds } from '../fakes/sequential-ids.js';
import { describeJobLauncherContract } from './job-launcher.contract.js';

describeJobLauncherContract('CreateJob, the job capability', async (runsJobs) => {
  const jobs = new InMemoryJobRepository();
  const launcher = new CreateJob(
    jobs,
    new InMemoryTaskQueue(),
    new EnvironmentSecretStore({ OPENAI_API_KEY: 'sk-test' }, AI_PROVIDERS),
    new SequentialIds(),
    new FixedClock(),
    new RecordingLogger(),
    {
      llmProviders: AI_PROVIDER_NAMES,
      defaultProvider: undefined,
      defaultModel: undefined,
      unavailableReason: runsJobs ? undefined : 'no job runner is configured',
    },
  );
  return {
    launcher,
    job: (id) => jobs.get(id),
    count: async () => Object.values(await jobs.countByStatus()).reduce((sum, n) => sum + (n ?? 0), 0),
  };
});
