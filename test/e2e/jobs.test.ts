import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startGateway, tempDir, type GatewayProcess } from '../support/gateway-process.js';
import { migratedDataDir } from '../support/data-dirs.js';
import { createKey as createKeyNamed, send, sleep, waitFor, type JsonResponse } from '../support/http.js';

/*
 * End-to-end: agent jobs on the BUILT server (`node dist/main.js`, see
 * test/support/gateway-process.ts) with the local runner, the embedded database (DATA_DIR a
 * temporary directory) and a scripted agent (JOB_AGENT_COMMAND). Outcomes are checked the way a
 * user notices them: response bodies over HTTP and the branches `job/<id>` of the jobs
 * repository (DATA_DIR/jobs-repo), read with git.
 *
 * Gateways: one main gateway (JOB_CONCURRENCY=1, a scripted agent that branches on the prompt,
 * an agent trigger) shared by most tests, one with JOB_TIMEOUT_SECONDS=1, one without any agent,
 * all started in parallel; the restart test starts and restarts its own.
 */

// ---------------------------------------------------------------------------------------------
// helpers

const createKey = (env: Record<string, string>): Promise<string> => createKeyNamed(env, 'j');

const git = promisify(execFile);

/** The public view of a job (docs/jobs.md). */
interface JobView {
  readonly job_id: string;
  readonly status: string;
  readonly branch: string;
  readonly pr_url: string | null;
  readonly run_url: string | null;
  readonly summary: string | null;
  readonly error: string | null;
  readonly source: string;
  readonly llm_provider: string | null;
  readonly llm_model: string | null;
  readonly created_at: string;
  readonly updated_at: string;
}

const JOB_VIEW_KEYS = [
  'job_id',
  'status',
  'branch',
  'pr_url',
  'run_url',
  'summary',
  'error',
  'source',
  'llm_provider',
  'llm_model',
  'created_at',
  'updated_at',
];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const FINISHED = ['succeeded', 'failed', 'cancelled'];
const INTERRUPTED = 'The service stopped while the job was running';

/** An HTTP client of one gateway with one key. */
class Client {
  constructor(
    readonly gateway: GatewayProcess,
    readonly key: string,
  ) {}

  createJob(body: unknown, key: string | null = this.key): Promise<JsonResponse<Record<string, unknown>>> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (key !== null) headers['x-api-key'] = key;
    return send(`${this.gateway.url}/api/create-job`, { method: 'POST', headers, body: JSON.stringify(body) });
  }

  status<T = JobView>(query: string): Promise<JsonResponse<T>> {
    return send<T>(`${this.gateway.url}/api/jobs/status${query}`, { headers: { 'x-api-key': this.key } });
  }

  async job(id: string): Promise<JobView> {
    const response = await this.status(`?job_id=${id}`);
    expect(response.status, JSON.stringify(response.body)).to.equal(200);
    return response.body;
  }

  async list(query = ''): Promise<JobView[]> {
    const response = await this.status<{ jobs: JobView[]; next_before?: string }>(query);
    expect(response.status, JSON.stringify(response.body)).to.equal(200);
    // next_before only when more jobs follow than the page holds.
    expect(response.body).to.have.all.keys(...(response.body.next_before !== undefined ? ['jobs', 'next_before'] : ['jobs']));
    return response.body.jobs;
  }

  /** Creates a job and checks the 200 answer; returns its id. */
  async create(body: Record<string, unknown>): Promise<string> {
    const response = await this.createJob(body);
    expect(response.status, JSON.stringify(response.body)).to.equal(200);
    const id = response.body.job_id as string;
    expect(id).to.match(UUID);
    expect(response.body).to.deep.equal({ job_id: id, branch: `job/${id}`, status: 'queued' });
    return id;
  }

  /** Polls the job until it is finished; returns its final view and every status seen, in order. */
  async finished(id: string, ms = 20_000): Promise<{ job: JobView; seen: string[] }> {
    const seen: string[] = [];
    const job = await waitFor(
      async () => {
        const view = await this.job(id);
        if (seen.at(-1) !== view.status) seen.push(view.status);
        return FINISHED.includes(view.status) ? view : undefined;
      },
      ms,
      `job ${id} to finish`,
    );
    return { job, seen };
  }
}

/** A file of the branch `job/<id>` of the jobs repository, exactly as committed. */
const showFile = async (repo: string, id: string, path: string): Promise<string> => (await git('git', ['-C', repo, 'show', `job/${id}:${path}`])).stdout;

const commitSubject = async (repo: string, id: string): Promise<string> =>
  (await git('git', ['-C', repo, 'log', '-1', '--format=%s', `job/${id}`])).stdout.trim();

/** The exact view of a job that finished well from the main gateway's scripted agent. */
const expectSucceeded = (job: JobView, id: string, extra: Partial<JobView> = {}): void => {
  expect(job).to.have.all.keys(...JOB_VIEW_KEYS);
  expect(job.created_at).to.match(ISO);
  expect(job.updated_at).to.match(ISO);
  expect(Date.parse(job.updated_at)).to.be.at.least(Date.parse(job.created_at));
  expect(job).to.deep.equal({
    job_id: id,
    status: 'succeeded',
    branch: `job/${id}`,
    pr_url: null,
    run_url: null,
    summary: 'Did the thing',
    error: null,
    source: 'api',
    llm_provider: null,
    llm_model: null,
    created_at: job.created_at,
    updated_at: job.updated_at,
    ...extra,
  });
};

/**
 * The scripted agent: writes the prompt to prompt.txt and what it can see of its environment to
 * env.txt, then acts on the prompt (FAIL: exit 3; HELD: runs until the test lets it go, see
 * `Gates`; else a short pause) and prints its summary last.
 */
const agent = (gates: string): string =>
  [
    `printf '%s' "$JOB_PROMPT" > prompt.txt`,
    'echo "openai=${OPENAI_API_KEY:-unset} anthropic=${ANTHROPIC_API_KEY:-unset} codehost=${CODEHOST_WEBHOOK_SECRET:-unset} dburl=${DATABASE_URL:-unset} datadir=${DATA_DIR:-unset} agentcmd=${JOB_AGENT_COMMAND:-unset} provider=${LLM_PROVIDER:-none} id=$JOB_ID branch=$JOB_BRANCH" > env.txt',
    `case "$JOB_PROMPT" in *FAIL*) echo "about to fail"; exit 3 ;; *HELD*) until [ -e '${gates}'/"$JOB_ID" ]; do sleep 0.05; done ;; *) sleep 0.4 ;; esac`,
    'echo "Did the thing"',
  ].join('\n');

/**
 * The jobs of the scripted agent whose prompt says HELD: each runs until the test lets it go (a
 * file named after the job in `dir`), so that a test sees it running, and the one queued behind
 * it queued, for as long as it looks — not for a fixed time a loaded machine may use up before
 * the test has looked (it listed a 2 s job as finished, and ran the one queued behind it).
 * Every job held is let go after each test, also one that failed, so that none blocks the
 * gateway's only job slot for the next test.
 */
class Gates {
  readonly #held = new Set<string>();
  constructor(readonly dir: string) {}

  held(id: string): string {
    this.#held.add(id);
    return id;
  }

  async release(id: string): Promise<void> {
    this.#held.delete(id);
    await writeFile(join(this.dir, id), '');
  }

  async releaseAll(): Promise<void> {
    await Promise.all([...this.#held].map((id) => this.release(id)));
  }
}

const OPENAI_SECRET = 'sk-e2e-openai-secret';
const ANTHROPIC_SECRET = 'sk-ant-e2e-secret';
const CODEHOST_SECRET = 'codehost-secret-for-jobs-e2e';

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Kills the process group led by `pid` (an agent this test's gateway started, detached). */
const killGroup = (pid: number): void => {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
};

/** A trigger file path that does not exist: no triggers (not the repository's config/TRIGGERS.json). */
const noTriggers = async (): Promise<string> => join(await tempDir('e2e-jobs-notriggers'), 'NONE.json');

// ---------------------------------------------------------------------------------------------

describe('e2e: agent jobs on the built server (local runner, embedded database)', function () {
  this.timeout(60_000);

  let main: Client;
  let mainRepo: string;
  let slow: Client;
  let none: Client;
  let gates: Gates;
  /** Every gateway started, also when another failed to start: all are stopped at the end. */
  const started: GatewayProcess[] = [];

  before(async () => {
    const [mainData, slowData, noneData, triggersDir, gatesDir] = await Promise.all([
      migratedDataDir('e2e-jobs-main'),
      migratedDataDir('e2e-jobs-timeout'),
      migratedDataDir('e2e-jobs-none'),
      tempDir('e2e-jobs-triggers'),
      tempDir('e2e-jobs-gates'),
    ]);
    gates = new Gates(gatesDir);
    mainRepo = join(mainData, 'jobs-repo');
    const triggersFile = join(triggersDir, 'TRIGGERS.json');
    await writeFile(
      triggersFile,
      JSON.stringify([{ name: 'agent-job', watch_path: '/webhook', enabled: true, actions: [{ type: 'agent', job: 'Handle {{body.issue}}' }] }]),
    );
    const start = async (env: Record<string, string>): Promise<Client> => {
      const gateway = await startGateway(env);
      started.push(gateway);
      return new Client(gateway, await createKey(gateway.env));
    };
    [main, slow, none] = await Promise.all([
      start({
        DATA_DIR: mainData,
        TRIGGERS_FILE: triggersFile,
        JOB_AGENT_COMMAND: agent(gates.dir),
        JOB_CONCURRENCY: '1',
        OPENAI_API_KEY: OPENAI_SECRET,
        ANTHROPIC_API_KEY: ANTHROPIC_SECRET,
        CODEHOST_WEBHOOK_SECRET: CODEHOST_SECRET,
      }),
      start({
        DATA_DIR: slowData,
        TRIGGERS_FILE: await noTriggers(),
        JOB_AGENT_COMMAND: 'echo started; sleep 10; echo "never printed"',
        JOB_TIMEOUT_SECONDS: '1',
      }),
      start({ DATA_DIR: noneData, TRIGGERS_FILE: await noTriggers() }),
    ]);
  });

  afterEach(async () => {
    await gates.releaseAll();
  });

  after(async () => {
    await Promise.all(started.map((gateway) => gateway.stop()));
  });

  describe('a job that works (main gateway)', () => {
    it("create-job answers 200 {job_id, branch, status: queued}; the job moves queued → running → succeeded with the agent's summary", async () => {
      const id = gates.held(await main.create({ job: 'HELD: write the greeting' }));
      // The agent runs until it is let go: running is seen however slowly the polls come.
      const seen: string[] = [];
      await waitFor(
        async () => {
          const { status } = await main.job(id);
          if (seen.at(-1) !== status) seen.push(status);
          return status === 'running';
        },
        20_000,
        'the job to run',
      );
      await gates.release(id);
      const finished = await main.finished(id);
      const { job } = finished;
      expectSucceeded(job, id);
      // Statuses only move forward.
      for (const status of finished.seen) if (seen.at(-1) !== status) seen.push(status);
      expect(seen, `statuses seen: ${seen.join(' → ')}`).to.include('running');
      const order = ['queued', 'running', 'succeeded'];
      const steps = seen.map((s) => order.indexOf(s));
      expect(
        steps.every((step, i) => step >= 0 && (i === 0 || step > steps[i - 1])),
        `statuses seen: ${seen.join(' → ')}`,
      ).to.equal(true);
      // job_id is a UUID, any case.
      expect(await main.job(id.toUpperCase())).to.deep.equal(job);
    });

    it("commits the agent's work, the prompt (logs/<id>/job.md) and its log to the branch job/<id> of DATA_DIR/jobs-repo", async () => {
      const prompt = 'Write the greeting';
      const id = await main.create({ job: prompt });
      await main.finished(id);
      expect(existsSync(join(mainRepo, '.git')), 'DATA_DIR/jobs-repo is a git repository').to.equal(true);
      expect(await showFile(mainRepo, id, 'prompt.txt')).to.equal(prompt);
      const jobMd = await showFile(mainRepo, id, `logs/${id}/job.md`);
      expect(jobMd).to.include(`# Job ${id}`);
      expect(jobMd).to.include(prompt);
      expect(await showFile(mainRepo, id, `logs/${id}/agent.log`)).to.equal('Did the thing\n');
      expect(await commitSubject(mainRepo, id)).to.equal(`job ${id}: ${prompt}`);
      // The job's environment: its id and branch; no provider named → no provider secret at all.
      expect(await showFile(mainRepo, id, 'env.txt')).to.equal(
        `openai=unset anthropic=unset codehost=unset dburl=unset datadir=unset agentcmd=unset provider=none id=${id} branch=job/${id}\n`,
      );
      // The worktree is gone once the job is done (the runner's return is logged after its
      // clean-up, which follows the reported status); the branch stays.
      await main.gateway.logLine((line) => line.msg === 'job runner returned' && line.jobId === id, `"job runner returned" of job ${id}`, 20_000);
      const worktrees = join(main.gateway.env.DATA_DIR, 'worktrees');
      expect(existsSync(worktrees) ? await readdir(worktrees) : []).to.deep.equal([]);
    });

    it("gives the agent its provider's secret and none of the service's own variables; the prompt arrives byte for byte", async () => {
      const prompt = 'Write the greeting\n  with \'single\' and "double" quotes, $HOME, `date` and ünïcødé\n';
      const id = await main.create({ job: prompt, llm_provider: 'openai', llm_model: 'gpt-e2e' });
      const { job } = await main.finished(id);
      expectSucceeded(job, id, { llm_provider: 'openai', llm_model: 'gpt-e2e' });
      expect(await showFile(mainRepo, id, 'prompt.txt')).to.equal(prompt);
      expect(await showFile(mainRepo, id, 'env.txt')).to.equal(
        `openai=${OPENAI_SECRET} anthropic=unset codehost=unset dburl=unset datadir=unset agentcmd=unset provider=openai id=${id} branch=job/${id}\n`,
      );
      expect(await showFile(mainRepo, id, `logs/${id}/job.md`)).to.include('Provider: openai\nModel: gpt-e2e\n');
    });
  });

  describe('validation and listing (main gateway)', () => {
    it('create-job: 401 without a key; 400 for a missing/empty job, an unknown provider, a provider without its secret', async () => {
      expect(await main.createJob({ job: 'x' }, null)).to.deep.equal({ status: 401, body: { error: 'Unauthorized' } });
      expect(await main.createJob({})).to.deep.equal({ status: 400, body: { error: 'Missing job field' } });
      expect(await main.createJob({ job: '   ' })).to.deep.equal({ status: 400, body: { error: 'Missing job field' } });
      expect(await main.createJob({ job: 42 })).to.deep.equal({ status: 400, body: { error: 'Missing job field' } });

      const acme = await main.createJob({ job: 'x', llm_provider: 'acme' });
      expect(acme.status).to.equal(400);
      expect(acme.body).to.have.all.keys('error');
      expect(acme.body.error).to.include('acme');

      const google = await main.createJob({ job: 'x', llm_provider: 'google' });
      expect(google.status).to.equal(400);
      expect(google.body).to.have.all.keys('error');
      expect(google.body.error).to.include('GOOGLE_API_KEY');

      // None of them created a job.
      expect(await main.list()).to.deep.equal([]);
    });

    it('create-job: 400, never a 5xx, for hostile bodies (a provider named after an Object property, a bad model, a prompt over the limit, not an object); none creates a job', async () => {
      const bodies = [
        JSON.stringify({ job: 'x', llm_provider: 'constructor' }),
        JSON.stringify({ job: 'x', llm_provider: 'hasOwnProperty' }),
        JSON.stringify({ job: 'x', llm_model: 'a'.repeat(201) }),
        JSON.stringify({ job: 'x', llm_model: 'gpt\u2028id=evil' }),
        JSON.stringify({ job: 'x', llm_model: 'gpt\u0085id=evil' }),
        '{"job":"x","llm_model": 5}',
        '{"job": 12345678901234567891}',
        '{"job": {"a": 1}}',
        '["job"]',
        JSON.stringify({ job: 'é'.repeat(65_531) }),
      ];
      for (const body of bodies) {
        const answer = await send<Record<string, unknown>>(`${main.gateway.url}/api/create-job`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': main.key },
          body,
        });
        expect(answer.status, `${body.slice(0, 80)}: ${JSON.stringify(answer.body)}`).to.equal(400);
      }
      expect(await main.list()).to.deep.equal([]);
    });

    it('jobs/status: a 4xx or a 200, never a 5xx, for hostile queries', async () => {
      const queries = [
        '?job_id=',
        '?job_id=%00',
        '?job_id=../../etc',
        '?job_id[]=1',
        '?limit=1e2',
        '?limit=-0',
        '?limit=200.0',
        '?status=__proto__',
        '?status=queued&status=running',
        '?before=%00',
        '?before[]=1',
        '?before=a&before=b',
        '?job_id=00000000-0000-0000-0000-000000000000',
      ];
      for (const query of queries) {
        const answer = await main.status<Record<string, unknown>>(query);
        expect(answer.status, `${query}: ${JSON.stringify(answer.body)}`).to.be.below(500);
      }
    });

    it('jobs/status: 400 for a job_id that is not a UUID or given twice, 404 {error: "Job not found"} for an unknown one', async () => {
      const bad = await main.status<Record<string, unknown>>('?job_id=not-a-uuid');
      expect(bad.status).to.equal(400);
      expect(bad.body).to.have.all.keys('error');
      expect(bad.body.error).to.include('job_id');
      const twice = await main.status<Record<string, unknown>>(`?job_id=${randomUUID()}&job_id=${randomUUID()}`);
      expect(twice.status).to.equal(400);
      expect(twice.body).to.have.all.keys('error');
      expect(await main.status(`?job_id=${randomUUID()}`)).to.deep.equal({ status: 404, body: { error: 'Job not found' } });
      const noKey = await send(`${main.gateway.url}/api/jobs/status`);
      expect(noKey).to.deep.equal({ status: 401, body: { error: 'Unauthorized' } });
    });

    it('jobs/status without job_id lists the unfinished jobs newest first; status narrows, limit caps, bad values are 400', async () => {
      const first = gates.held(await main.create({ job: 'HELD one' }));
      await sleep(20);
      const second = gates.held(await main.create({ job: 'HELD two' }));

      // JOB_CONCURRENCY=1 and the first job held: both are unfinished until it is let go.
      const all = await main.list();
      expect(all.map((j) => j.job_id)).to.deep.equal([second, first]);
      for (const job of all) {
        expect(job).to.have.all.keys(...JOB_VIEW_KEYS);
        expect(['queued', 'running']).to.include(job.status);
      }
      expect(all[0].status, 'the newer job waits for the older one').to.equal('queued');

      const queued = await main.list('?status=queued');
      expect(queued.map((j) => j.job_id)).to.include(second);
      expect(
        queued.every((j) => j.status === 'queued'),
        JSON.stringify(queued),
      ).to.equal(true);
      expect((await main.list('?limit=1')).map((j) => j.job_id)).to.deep.equal([second]);
      // The next page after the cursor of the first: the older job, and no cursor after it.
      const firstPage = await main.status<{ jobs: JobView[]; next_before?: string }>('?limit=1');
      expect(firstPage.body.next_before, JSON.stringify(firstPage.body)).to.be.a('string');
      const nextPage = await main.status<{ jobs: JobView[]; next_before?: string }>(`?limit=1&before=${firstPage.body.next_before}`);
      expect(nextPage.body.jobs.map((j) => j.job_id)).to.deep.equal([first]);
      expect(nextPage.body).to.have.all.keys('jobs');

      for (const query of ['?limit=0', '?limit=201', '?limit=abc', '?limit=1.5', '?status=bogus', '?before=bogus']) {
        const response = await main.status<Record<string, unknown>>(query);
        expect(response.status, query).to.equal(400);
        expect(response.body, query).to.have.all.keys('error');
        expect(response.body.error, query).to.include(query.slice(1).split('=')[0]);
      }

      // Running: the older one first (one at a time), and it is listed as running.
      const running = await waitFor(
        async () => {
          const jobs = await main.list('?status=running');
          return jobs.length > 0 ? jobs : undefined;
        },
        10_000,
        'a running job',
      );
      expect(running.map((j) => j.job_id)).to.deep.equal([first]);
      await gates.release(first);
      await gates.release(second);

      expectSucceeded((await main.finished(first)).job, first);
      expectSucceeded((await main.finished(second)).job, second);
      // Finished jobs leave the default listing but are found by their status.
      expect(await main.list()).to.deep.equal([]);
      const succeeded = (await main.list('?status=succeeded')).map((j) => j.job_id);
      expect(succeeded.slice(0, 2)).to.deep.equal([second, first]);
    });
  });

  describe('code-host events and local jobs (main gateway)', () => {
    it("a signed workflow_run for a local job's branch moves nothing: the job ends as its agent ended (no code host runs local jobs)", async () => {
      const id = gates.held(await main.create({ job: 'HELD work, then done' }));
      await waitFor(async () => (await main.job(id)).status === 'running', 20_000, 'the job to run');
      const body = JSON.stringify({
        action: 'completed',
        repository: { full_name: 'someone/else' },
        workflow_run: {
          head_branch: `job/${id}`,
          head_repository: { full_name: 'someone/else' },
          path: '.github/workflows/ci.yml',
          conclusion: 'failure',
          html_url: 'https://github.com/someone/else/actions/runs/1',
        },
      });
      const answer = await send(`${main.gateway.url}/api/codehost/webhook`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-github-event': 'workflow_run',
          'x-github-delivery': randomUUID(),
          'x-hub-signature-256': `sha256=${createHmac('sha256', CODEHOST_SECRET).update(body).digest('hex')}`,
        },
        body,
      });
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
      expect((await main.job(id)).status, 'the job still runs after the event').to.equal('running');
      await gates.release(id);
      // Before, the event failed the running job, and the agent's own result was then dropped.
      const { job } = await main.finished(id);
      expectSucceeded(job, id);
    });
  });

  describe('jobs that fail', () => {
    it('an agent that exits with code 3 fails the job with an error naming the exit code; its work is still committed', async () => {
      const id = await main.create({ job: 'FAIL on purpose' });
      const { job } = await main.finished(id);
      expect(job.status).to.equal('failed');
      expect(job.error).to.be.a('string');
      expect(job.error).to.match(/exit/i);
      expect(job.error).to.match(/\b3\b/);
      expect(job.summary).to.equal('about to fail');
      expect(await showFile(mainRepo, id, 'prompt.txt')).to.equal('FAIL on purpose');
      expect(await showFile(mainRepo, id, `logs/${id}/agent.log`)).to.equal('about to fail\n');
    });

    it('an agent slower than JOB_TIMEOUT_SECONDS=1 is stopped and the job fails with an error about the time limit', async () => {
      const id = await slow.create({ job: 'Take your time' });
      // The agent sleeps 10 s after "started": the job finishes within 15 s only because it was stopped
      // (and its log shows it never got further).
      const { job } = await slow.finished(id, 15_000);
      expect(job.status).to.equal('failed');
      expect(job.error).to.be.a('string');
      expect(job.error).to.match(/did not finish within|time ?limit|timed? ?out/i);
      expect(job.summary).to.equal('started');
      const repo = join(slow.gateway.env.DATA_DIR, 'jobs-repo');
      expect(await showFile(repo, id, `logs/${id}/agent.log`)).to.equal('started\n');
    });
  });

  describe('a gateway without an agent', () => {
    it('create-job answers 501 with an error naming JOB_AGENT_COMMAND, and stores no job', async () => {
      const response = await none.createJob({ job: 'Write the greeting' });
      expect(response.status).to.equal(501);
      expect(response.body).to.have.all.keys('error');
      expect(response.body.error).to.include('JOB_AGENT_COMMAND');
      expect(await none.list()).to.deep.equal([]);
      // Validation still comes first.
      expect(await none.createJob({})).to.deep.equal({ status: 400, body: { error: 'Missing job field' } });
    });
  });

  describe('an agent trigger (main gateway)', () => {
    it('POST /api/webhook starts a job whose prompt is the rendered template, the request value in an untrusted block, from source "trigger"', async () => {
      const response = await send(`${main.gateway.url}/api/webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': main.key },
        body: JSON.stringify({ issue: '#42' }),
      });
      expect(response).to.deep.equal({ status: 200, body: { ok: true, triggers: ['agent-job'] } });

      const found = await waitFor(
        async () => {
          for (const status of ['queued', 'running', 'succeeded', 'failed']) {
            const job = (await main.list(`?status=${status}`)).find((j) => j.source === 'trigger');
            if (job) return job;
          }
          return undefined;
        },
        10_000,
        "the trigger's job",
      );
      const id = found.job_id;
      const { job } = await main.finished(id);
      expectSucceeded(job, id, { source: 'trigger' });
      // The agent (JOB_PROMPT) and the branch (job.md) get the framed prompt: the notice naming
      // this render's tag first, then the template with the value byte for byte inside the block.
      const prompt = await showFile(mainRepo, id, 'prompt.txt');
      const tag = /<(untrusted-input-[0-9a-f]{32}) /.exec(prompt)?.[1];
      expect(tag, prompt).to.be.a('string');
      expect(prompt).to.match(/^Untrusted input: parts of this task were copied from an outside request\./);
      expect(prompt).to.contain(`A block ends only at </${tag}>.`);
      expect(prompt.endsWith(`\n\nHandle <${tag} source="body.issue">#42</${tag}>`), prompt).to.equal(true);
      expect(await showFile(mainRepo, id, `logs/${id}/job.md`)).to.include(prompt);
    });
  });
});

describe('e2e: agent jobs survive a restart (local runner, embedded database)', function () {
  // Two starts, a stop that may wait for a running job and three jobs to wait for: 60 s was
  // exceeded on a loaded 2-core machine (a 21-minute run).
  this.timeout(150_000);

  let gateway: GatewayProcess | undefined;

  afterEach(async () => {
    await gateway?.stop();
    gateway = undefined;
  });

  it('a graceful stop right after three jobs were created loses none: all three succeed, a running one within the grace period, the others after the restart', async () => {
    const dataDir = await migratedDataDir('e2e-jobs-restart');
    const env = {
      DATA_DIR: dataDir,
      TRIGGERS_FILE: await noTriggers(),
      // Only the first job takes a while, so that the stop finds it running; the others, run
      // after the restart, end at once.
      JOB_AGENT_COMMAND: `printf '%s' "$JOB_PROMPT" > prompt.txt; case "$JOB_PROMPT" in *1) sleep 1;; esac; echo "Did the thing"`,
      JOB_CONCURRENCY: '1',
      // The stop waits this long for a running job (Gateway.stop): far longer than the job takes,
      // even on a loaded machine. The job stopped past it is the next test's.
      SHUTDOWN_TIMEOUT_MS: '30000',
    };
    gateway = await startGateway(env);
    const first = new Client(gateway, await createKey(gateway.env));
    const ids: string[] = [];
    for (const n of [1, 2, 3]) ids.push(await first.create({ job: `Restart job ${n}` }));
    const stoppedAt = Date.now();
    expect(await gateway.stop(), 'exit code of the graceful stop').to.equal(0);
    const stopMs = Date.now() - stoppedAt;
    gateway = undefined;

    gateway = await startGateway({ ...env, QUEUE_SUPERVISE_SECONDS: '1' });
    const second = new Client(gateway, first.key);
    const views: JobView[] = [];
    for (const id of ids) views.push((await second.finished(id, 40_000)).job);

    const report = views.map((v, i) => `job ${i + 1}: ${v.status}${v.error ? ` (${v.error})` : ''}`).join('; ');
    console.log(`      restart: graceful stop took ${stopMs} ms; ${report}`);
    expect(
      views.map((view) => view.status),
      report,
    ).to.deep.equal(['succeeded', 'succeeded', 'succeeded']);
    const repo = join(dataDir, 'jobs-repo');
    for (const [i, view] of views.entries()) {
      expect(view.summary).to.equal('Did the thing');
      expect(await showFile(repo, view.job_id, 'prompt.txt')).to.equal(`Restart job ${i + 1}`);
    }
    expect(await second.list()).to.deep.equal([]);
  });

  it('a stop that outlasts SHUTDOWN_TIMEOUT_MS: after the restart the running job is failed as interrupted, the queued one runs; no agent or worktree is left behind', async () => {
    const dataDir = await migratedDataDir('e2e-jobs-interrupt');
    const marks = await tempDir('e2e-jobs-interrupt-pids');
    const env = {
      DATA_DIR: dataDir,
      TRIGGERS_FILE: await noTriggers(),
      // The agent notes its process id (the leader of its process group) outside the worktree.
      // The first job's never ends by itself (it slept 2 s, which a loaded machine could use up
      // before the stop, and the job then succeeded): only the service's stop ends it.
      JOB_AGENT_COMMAND: `echo $$ > ${marks}/$JOB_ID.pid; printf '%s' "$JOB_PROMPT" > prompt.txt; case "$JOB_PROMPT" in Interrupted*) while :; do sleep 0.05; done ;; esac; echo "Did the thing"`,
      JOB_CONCURRENCY: '1',
      SHUTDOWN_TIMEOUT_MS: '500',
    };
    gateway = await startGateway(env);
    const first = new Client(gateway, await createKey(gateway.env));
    const running = await first.create({ job: 'Interrupted job' });
    const queued = await first.create({ job: 'Queued job' });
    await waitFor(async () => (await first.job(running)).status === 'running', 10_000, 'the first job to run');
    const pid = await waitFor(async () => Number((await readFile(join(marks, `${running}.pid`), 'utf8').catch(() => '')).trim()), 10_000, "the agent's pid");
    // Once the grace period is over the running job is stopped (its agent killed, its work
    // committed, the job marked interrupted) and the service exits: it does not wait out the task
    // queue's limit of its stop (SHUTDOWN_TIMEOUT_MS + 15 s) for a job that never ends.
    const stoppedAt = Date.now();
    expect(await gateway.stop(10_000), 'exit code of the graceful stop').to.equal(0);
    const stopMs = Date.now() - stoppedAt;
    gateway = undefined;
    // The service has exited: is the agent it started still running, unsupervised?
    const agentOutlivedService = isAlive(pid);
    if (agentOutlivedService) killGroup(pid);

    gateway = await startGateway({ ...env, QUEUE_SUPERVISE_SECONDS: '1' });
    const second = new Client(gateway, first.key);
    const interrupted = (await second.finished(running, 40_000)).job;
    const ran = (await second.finished(queued, 40_000)).job;
    // A job's status is reported before its runner removes the worktree: the runner's return is
    // logged once that is done.
    await gateway.logLine((line) => line.msg === 'job runner returned' && line.jobId === queued, `"job runner returned" of job ${queued}`, 20_000);
    console.log(
      `      interrupt: stop took ${stopMs} ms; running job ${interrupted.status} (${interrupted.error}); queued job ${ran.status} (${ran.error}); agent alive after the service exited: ${agentOutlivedService}`,
    );
    expect(interrupted.status).to.equal('failed');
    expect(interrupted.error).to.equal(INTERRUPTED);
    expect(ran.status).to.equal('succeeded');
    expect(ran.summary).to.equal('Did the thing');
    expect(await showFile(join(dataDir, 'jobs-repo'), queued, 'prompt.txt')).to.equal('Queued job');

    // A stopped service leaves nothing running and nothing behind: the agent (process group) of the
    // interrupted job is stopped with the service, and its worktree is removed like any other.
    expect(agentOutlivedService, `the agent of the interrupted job (pid ${pid}) was still running after the service had exited`).to.equal(false);
    expect(await readdir(join(dataDir, 'worktrees')), 'worktrees left in DATA_DIR/worktrees').to.deep.equal([]);
  });
});
