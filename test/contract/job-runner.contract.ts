import { expect } from 'chai';
import type { Job, JobChange } from '../../src/domain/jobs/job.js';
import type { JobRunner } from '../../src/ports/job-runner.js';

export interface JobRunnerHarness {
  readonly runner: JobRunner;
  /** The text of `path` on the job's branch where the runner delivered its work. */
  fileOnBranch(job: Job, path: string): Promise<string>;
  /** Whether the runner reports the outcome itself (in-process) or hands the job over (outcome arrives by events). */
  readonly reportsOutcome: boolean;
  close(): Promise<void>;
}

let counter = 0;
export const contractJob = (prompt: string): Job => {
  counter++;
  const id = `40000000-0000-4000-8000-${String(counter).padStart(12, '0')}`;
  return {
    id,
    job: prompt,
    status: 'running',
    source: { kind: 'api' },
    llmProvider: 'openai',
    llmModel: 'gpt-test',
    branch: `job/${id}`,
    prUrl: null,
    runUrl: null,
    summary: null,
    error: null,
    log: null,
    createdAt: new Date(),
    updatedAt: new Date(),
  };
};

/** The behaviour every JobRunner adapter must have. */
export const describeJobRunnerContract = (name: string, open: () => Promise<JobRunnerHarness>): void => {
  describe(`JobRunner contract: ${name}`, function () {
    this.timeout(30_000);
    let harness: JobRunnerHarness;
    beforeEach(async () => {
      harness = await open();
    });
    afterEach(async () => harness.close());

    it('delivers the prompt, provider and model as logs/<id>/job.md on the branch job/<id>', async () => {
      const job = contractJob('Rename the widget\nand update the docs');
      await harness.runner.run(job, async () => undefined, new AbortController().signal);
      const file = await harness.fileOnBranch(job, `logs/${job.id}/job.md`);
      expect(file).to.contain('Rename the widget\nand update the docs');
      expect(file).to.contain('openai').and.to.contain('gpt-test');
    });

    it('reports only changes a job may take, ending in a finished state when it reports the outcome', async () => {
      const job = contractJob('Do the work');
      const reports: JobChange[] = [];
      await harness.runner.run(job, async (change) => void reports.push(change), new AbortController().signal);
      for (const report of reports) {
        if (report.status !== undefined) expect(['running', 'succeeded', 'failed', 'cancelled']).to.include(report.status);
      }
      if (harness.reportsOutcome) expect(reports.at(-1)?.status).to.be.oneOf(['succeeded', 'failed']);
      else expect(reports.every((r) => r.status === undefined)).to.equal(true);
    });
  });
};
