import { expect } from 'chai';
import { Container } from 'inversify';
import type { Database } from '../../../src/adapters/persistence/database.js';
import { EnvironmentSecretStore } from '../../../src/adapters/secrets/environment-secret-store.js';
import { AI_PROVIDERS } from '../../../src/adapters/ai/ai-providers.js';
import { jobsPerPoll } from '../../../src/application/jobs/poll-jobs.js';
import { bindJobs } from '../../../src/container/bindings/job-bindings.js';
import { loadConfig } from '../../../src/container/config.js';
import { TOKENS } from '../../../src/container/tokens.js';
import { FixedClock } from '../../fakes/fixed-clock.js';
import { InMemoryTaskQueue } from '../../fakes/in-memory-task-queue.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';
import { SequentialIds } from '../../fakes/sequential-ids.js';

/** The service's PollJobs, as the container builds it from the settings (nothing is polled). */
const pollJobsOf = async (env: Record<string, string>) => {
  const c = new Container();
  c.bind(TOKENS.Database).toConstantValue({} as Database);
  c.bind(TOKENS.TaskQueue).toConstantValue(new InMemoryTaskQueue());
  c.bind(TOKENS.Clock).toConstantValue(new FixedClock());
  c.bind(TOKENS.Logger).toConstantValue(new RecordingLogger());
  c.bind(TOKENS.IdGenerator).toConstantValue(new SequentialIds());
  c.bind(TOKENS.ShellExecutor).toConstantValue({ run: async () => ({ exitCode: 0, output: '' }) } as never);
  c.bind(TOKENS.SecretStore).toConstantValue(new EnvironmentSecretStore({}, AI_PROVIDERS));
  bindJobs(c, loadConfig({ CODEHOST_TOKEN: 'ghp_x', CODEHOST_REPO: 'acme/app', ...env }, '/srv/gw'));
  return c.getAsync(TOKENS.PollJobs);
};

describe('the job poll as bound (CODEHOST_POLL_SECONDS)', () => {
  it('asks about as many jobs a poll as the code host’s budget allows at the configured interval', async () => {
    expect((await pollJobsOf({})).perPoll, 'the default, every 60 s').to.equal(50);
    expect((await pollJobsOf({ CODEHOST_POLL_SECONDS: '5' })).perPoll).to.equal(jobsPerPoll(5_000));
    expect((await pollJobsOf({ CODEHOST_POLL_SECONDS: '120' })).perPoll).to.equal(100);
    expect((await pollJobsOf({ CODEHOST_POLL_SECONDS: '3600' })).perPoll).to.equal(200);
  });
});
