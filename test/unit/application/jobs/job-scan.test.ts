import { expect } from 'chai';
import { JobScan, SCAN_PAGE } from '../../../../src/application/jobs/job-scan.js';
import type { Job } from '../../../../src/domain/jobs/job.js';
import { InMemoryJobRepository } from '../../../fakes/in-memory-job-repository.js';

const T0 = Date.UTC(2026, 11, 1, 9, 0, 0);

const running = (n: number, createdAt = new Date(T0 + n * 1000)): Job => {
  const id = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
  return {
    id,
    job: 'x',
    status: 'running',
    source: { kind: 'api' },
    llmProvider: null,
    llmModel: null,
    branch: `job/${id}`,
    prUrl: null,
    runUrl: null,
    summary: null,
    error: null,
    log: null,
    createdAt,
    updatedAt: createdAt,
  };
};

/** The numbers of the jobs one pass gives, taking at most `take` of them. */
const pass = async (scan: JobScan, take = Number.POSITIVE_INFINITY): Promise<number[]> => {
  const seen: number[] = [];
  for await (const job of scan.pass()) {
    if (seen.length >= take) break;
    seen.push(Number(job.id.slice(-12)));
  }
  return seen;
};

const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, n) => from + n);

describe('JobScan', () => {
  it('gives at most perPass jobs a pass, oldest first, goes on where the last pass stopped and round to the oldest, up to where it began', async () => {
    const jobs = new InMemoryJobRepository();
    for (let n = 0; n < 25; n++) await jobs.add(running(n));
    const scan = new JobScan(jobs, ['running'], 10);
    expect(await pass(scan)).to.deep.equal(range(0, 10));
    expect(await pass(scan)).to.deep.equal(range(10, 20));
    expect(await pass(scan)).to.deep.equal([...range(20, 25), ...range(0, 5)]);
    // A job created meanwhile is the newest: reached before the pass goes round.
    await jobs.add(running(30));
    expect(await pass(scan)).to.deep.equal(range(5, 15));
    expect(await pass(scan)).to.deep.equal(range(15, 25));
    expect(await pass(scan)).to.deep.equal([30, ...range(0, 9)]);
  });

  it('gives each job once a pass when there are fewer than perPass, also when the last pass stopped midway', async () => {
    const jobs = new InMemoryJobRepository();
    for (let n = 0; n < 5; n++) await jobs.add(running(n));
    const scan = new JobScan(jobs, ['running'], 10);
    expect(await pass(scan)).to.deep.equal(range(0, 5));
    // The consumer stops after two: the job it did not take begins the next pass, which goes round to it.
    expect(await pass(scan, 2)).to.deep.equal([0, 1]);
    expect(await pass(scan)).to.deep.equal([2, 3, 4, 0, 1]);
    expect(await pass(new JobScan(new InMemoryJobRepository(), ['running'], 10))).to.deep.equal([]);
  });

  it('reads a page at a time, keyset by creation time and id: jobs created at the same time across a page boundary are each given once', async () => {
    const jobs = new InMemoryJobRepository();
    const same = new Date(T0);
    const total = SCAN_PAGE + 20;
    for (let n = 0; n < total; n++) await jobs.add(running(n, same));
    const scan = new JobScan(jobs, ['running'], 2 * SCAN_PAGE);
    expect(await pass(scan)).to.deep.equal(range(0, total));
    expect(jobs.oldestFirstCalls).to.equal(2);
  });
});
