import { expect } from 'chai';
import type { Job, JobChange } from '../../src/domain/jobs/job.js';
import type { JobRunner } from '../../src/ports/job-runner.js';

export interface JobRunnerHarness {
  readonly runner: JobRunner;
  /** The text of `path` on the job's branch where the runner delivered its work. */
  fileOnBranch(job: Job, path: string): Promise<string>;
  /**
   * The status the runner reports last for the contract's job (its work succeeds wherever it
   * runs): the finished state when it reports the outcome itself (in-process); null when it hands
   * the job over (the outcome arrives by events) and reports no status.
   */
  readonly outcome: 'succeeded' | 'failed' | null;
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

    it('reports changes, only ones a job may take; one that reports the outcome ends in the state the job reached', async () => {
      const job = contractJob('Do the work');
      const reports: JobChange[] = [];
      await harness.runner.run(job, async (change) => void reports.push(change), new AbortController().signal);
      expect(reports, 'the changes reported').to.not.be.empty;
      for (const report of reports) {
        if (report.status !== undefined) expect(['running', 'succeeded', 'failed', 'cancelled']).to.include(report.status);
      }
      if (harness.outcome === null) expect(reports.map((r) => r.status).filter((status) => status !== undefined)).to.deep.equal([]);
      else expect(reports.at(-1)?.status).to.equal(harness.outcome);
    });
  });
};
