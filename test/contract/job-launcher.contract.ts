import { expect } from 'chai';
import { DomainError } from '../../src/domain/errors/domain-error.js';
import type { Job } from '../../src/domain/jobs/job.js';
import type { JobLauncher } from '../../src/ports/job-launcher.js';

export interface JobLauncherHarness {
  readonly launcher: JobLauncher;
  /** The job the job capability holds under `id`, or null. */
  job(id: string): Promise<Job | null>;
  /** How many jobs it holds. */
  count(): Promise<number>;
}

/**
 * The behaviour every JobLauncher must have, as trigger and schedule `agent` actions use it.
 * `open(true)`: a deployment that runs jobs, where the provider `openai` has its secret;
 * `open(false)`: one that cannot run jobs.
 */
export const describeJobLauncherContract = (name: string, open: (runsJobs: boolean) => Promise<JobLauncherHarness>): void => {
  describe(`JobLauncher contract: ${name}`, () => {
    it('creates the job asked for and returns its id: queued, with the prompt, provider, model and the trigger it came from', async () => {
      const harness = await open(true);
      const id = await harness.launcher.launch({
        job: 'Fix the flaky test',
        llmProvider: 'openai',
        llmModel: 'gpt-test',
        source: { kind: 'trigger', name: 'on-push' },
      });
      expect(id).to.be.a('string').and.not.equal('');
      expect(await harness.job(id)).to.deep.include({
        id,
        job: 'Fix the flaky test',
        status: 'queued',
        llmProvider: 'openai',
        llmModel: 'gpt-test',
        source: { kind: 'trigger', name: 'on-push' },
      });
    });

    it('creates a job of its own for each launch, the same request twice included', async () => {
      const harness = await open(true);
      const launch = { job: 'Nightly report', source: { kind: 'trigger', name: 'cron:nightly' } } as const;
      const first = await harness.launcher.launch(launch);
      const second = await harness.launcher.launch(launch);
      expect(second).not.to.equal(first);
      expect(await harness.count()).to.equal(2);
      expect((await harness.job(second))?.job).to.equal('Nightly report');
    });

    it('refuses with not_configured where this deployment cannot run jobs, creating none', async () => {
      const harness = await open(false);
      const error = await harness.launcher.launch({ job: 'Fix it', source: { kind: 'trigger', name: 'on-push' } }).then(
        () => expect.fail('expected a refusal'),
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(DomainError).and.to.include({ code: 'not_configured' });
      expect(await harness.count()).to.equal(0);
    });
  });
};
