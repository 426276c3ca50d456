import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { loadConfig } from '../../../src/container/config.js';
import { Gateway } from '../../../src/container/gateway.js';
import { TOKENS } from '../../../src/container/tokens.js';
import { branchOf, type Job } from '../../../src/domain/jobs/job.js';
import { tempDir } from '../../support/gateway-process.js';
import { waitFor } from '../../support/http.js';
import { createScratchDatabase, describeWithPostgres, type ScratchDatabase } from '../../support/postgres.js';

/*
 * The whole service on PostgreSQL, in this process, with JOB_QUEUE_LIMIT=2: what an
 * API caller gets once two jobs wait to run. The waiting jobs are stored directly, without a
 * run task, so that none of them starts while the test looks (a job created through the API
 * may start at once: the local runner's agent is `true`). (The count itself is checked on both
 * engines by the JobRepository contract; the service started in-process on the embedded
 * database fails in MikroORM's EntityLoader under mocha at the time of writing, also without
 * this change.)
 */
describeWithPostgres('POST /api/create-job while the job queue is full (JOB_QUEUE_LIMIT)', function () {
  this.timeout(90_000);
  let scratch: ScratchDatabase | undefined;
  let gateway: Gateway | undefined;
  let url: string;
  let key: string;

  before(async () => {
    scratch = await createScratchDatabase();
    const dataDir = await tempDir('job-queue-limit');
    const config = loadConfig(
      {
        DATA_DIR: dataDir,
        DATABASE_URL: scratch.url,
        LOG_LEVEL: 'silent',
        HOST: '127.0.0.1',
        PORT: '0',
        JOB_AGENT_COMMAND: 'true',
        JOB_QUEUE_LIMIT: '2',
      },
      dataDir,
    );
    gateway = await Gateway.start(config);
    url = `http://127.0.0.1:${gateway.port}`;
    key = (await (await gateway.container.getAsync(TOKENS.KeyAdministration)).create('test')).key;
  });
  after(async () => {
    await gateway?.stop();
    await scratch?.drop();
  });

  /** Stores a job waiting to run, as a creation would, but without its run task. */
  const addWaitingJob = async (): Promise<void> => {
    const id = randomUUID();
    const now = new Date();
    const job: Job = {
      id,
      job: 'Waiting',
      status: 'queued',
      source: { kind: 'api' },
      llmProvider: null,
      llmModel: null,
      branch: branchOf(id),
      prUrl: null,
      runUrl: null,
      summary: null,
      error: null,
      log: null,
      createdAt: now,
      updatedAt: now,
    };
    await (await gateway!.container.getAsync(TOKENS.JobRepository)).add(job);
  };
  const queued = async (): Promise<number> => (await (await gateway!.container.getAsync(TOKENS.JobRepository)).countByStatus()).queued ?? 0;

  const post = async (body: unknown, idempotencyKey?: string) => {
    const response = await fetch(`${url}/api/create-job`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key, ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }) },
      body: JSON.stringify(body),
    });
    return {
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      replayed: response.headers.get('idempotent-replayed'),
      body: (await response.json()) as Record<string, unknown>,
    };
  };

  it('answers a new job with 503, Retry-After and an error naming the limit and its setting; a request sent again with its Idempotency-Key gets its job', async () => {
    await addWaitingJob();
    const created = await post({ job: 'Fix the flaky test' }, 'order-1');
    expect(created.status).to.equal(200);
    // The job created starts by itself (its agent is `true`): once it has left the queue, the
    // count stays what the waiting jobs make it (it started between two requests otherwise, and
    // the second was let in).
    const jobs = await gateway!.container.getAsync(TOKENS.JobRepository);
    await waitFor(async () => (await jobs.get(created.body.job_id as string))?.status !== 'queued', 30_000, 'the job created to leave the queue');
    while ((await queued()) < 2) await addWaitingJob();
    const before = await queued();

    expect(await post({ job: 'One more' })).to.deep.equal({
      status: 503,
      retryAfter: '60',
      replayed: null,
      body: { error: 'Job queue full: 2 jobs are already waiting to run (JOB_QUEUE_LIMIT=2); try again once some have started' },
    });
    expect((await post({ job: 'One more' }, 'order-2')).status).to.equal(503);
    expect(await queued()).to.equal(before);

    const again = await post({ job: 'Fix the flaky test' }, 'order-1');
    expect({ status: again.status, replayed: again.replayed, jobId: again.body.job_id }).to.deep.equal({
      status: 200,
      replayed: 'true',
      jobId: created.body.job_id,
    });
  });
});
