import { AI_PROVIDERS, AI_PROVIDER_NAMES } from '../../src/adapters/ai/ai-providers.js';
import { EnvironmentSecretStore } from '../../src/adapters/secrets/environment-secret-store.js';
import { CreateJob, type CreateJobSettings } from '../../src/application/jobs/create-job.js';
import type { JobRepository } from '../../src/ports/job-repository.js';
import { FixedClock } from './fixed-clock.js';
import { InMemoryJobRepository } from './in-memory-job-repository.js';
import { InMemoryTaskQueue } from './in-memory-task-queue.js';
import { RecordingLogger } from './recording-logger.js';
import { SequentialIds } from './sequential-ids.js';

/**
 * CreateJob on in-memory fakes (no provider secret, no default provider or model, sequential
 * ids, a fixed clock), for tests of what creates jobs (the chat agent, trigger actions); `settings`
 * overrides the defaults.
 */
export const createJobOnFakes = (jobs: JobRepository = new InMemoryJobRepository(), settings: Partial<CreateJobSettings> = {}): CreateJob =>
  new CreateJob(jobs, new InMemoryTaskQueue(), new EnvironmentSecretStore({}, AI_PROVIDERS), new SequentialIds(), new FixedClock(), new RecordingLogger(), {
    llmProviders: AI_PROVIDER_NAMES,
    defaultProvider: undefined,
    defaultModel: undefined,
    unavailableReason: undefined,
    ...settings,
  });
