import { expect } from 'chai';
import { createHmac, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Database } from '../../src/adapters/persistence/database.js';
import { createPino, PinoLogger } from '../../src/adapters/logging/pino-logger.js';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { migratedDataDir } from '../support/data-dirs.js';
import { createKey, send, waitFor } from '../support/http.js';

/**
 * Jobs on GitHub Actions, end to end: the built server hands a job to a loopback fake of
 * the GitHub REST API (branch job/<id> + logs/<id>/job.md), then signed code-host events move
 * the job: workflow_run in progress → running with its run URL, pull_request → its PR URL,
 * workflow_run completed/success → succeeded.
 */

interface GithubCall {
  readonly method: string;
  readonly path: string;
  readonly body: Record<string, unknown>;
  readonly authorization: string | undefined;
}

const startFakeGithub = async (): Promise<{ url: string; calls: GithubCall[]; close(): Promise<void> }> => {
  const calls: GithubCall[] = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const path = req.url ?? '';
      calls.push({ method: req.method ?? '', path, body: raw ? (JSON.parse(raw) as Record<string, unknown>) : {}, authorization: req.headers.authorization });
      const json = (status: number, body: unknown): void => void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.headers.authorization !== 'Bearer ghp_e2e') return json(401, { message: 'Bad credentials' });
      if (req.method === 'GET' && path === '/repos/acme/app') return json(200, { full_name: 'acme/app', default_branch: 'main' });
      if (req.method === 'GET' && path === '/repos/acme/app/git/ref/heads/main')
        return json(200, { ref: 'refs/heads/main', object: { sha: 'c0ffee', type: 'commit' } });
      if (req.method === 'POST' && path === '/repos/acme/app/git/refs') return json(201, { ref: JSON.parse(raw).ref, object: { sha: 'c0ffee' } });
      if (req.method === 'PUT' && path.startsWith('/repos/acme/app/contents/logs/')) return json(201, { content: { path }, commit: { sha: 'beef' } });
      if (req.method === 'GET' && path.startsWith('/repos/acme/app/actions/workflows/agent-job.yml/runs'))
        return json(200, { total_count: 0, workflow_runs: [] });
      json(404, { message: 'Not Found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls, close: () => new Promise((resolve) => server.close(() => resolve())) };
};

const SECRET = 'e2e-hook-secret';

describe('e2e: jobs on GitHub Actions (fake GitHub REST, signed events)', function () {
  this.timeout(60_000);
  let github: Awaited<ReturnType<typeof startFakeGithub>>;
  let gateway: GatewayProcess;
  let key: string;

  const deliver = (event: string, payload: object) => {
    const body = JSON.stringify(payload);
    return send(`${gateway.url}/api/codehost/webhook`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': event,
        'x-github-delivery': randomUUID(),
        'x-hub-signature-256': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
      },
      body,
    });
  };
  /** The job is handed over once its file is on the fake GitHub. */
  const handedOver = (id: string) => waitFor(() => github.calls.find((c) => c.method === 'PUT' && c.path.includes(id)), 15_000, 'the job to be handed over');
  const status = async (id: string) =>
    (await send<Record<string, unknown>>(`${gateway.url}/api/jobs/status?job_id=${id}`, { headers: { 'x-api-key': key } })).body;

  before(async () => {
    github = await startFakeGithub();
    const dir = await migratedDataDir('github');
    const env = {
      DATA_DIR: dir,
      TRIGGERS_FILE: join(dir, 'none.json'),
      CODEHOST_TOKEN: 'ghp_e2e',
      CODEHOST_REPO: 'acme/app',
      CODEHOST_API_URL: github.url,
      CODEHOST_WEBHOOK_SECRET: SECRET,
    };
    gateway = await startGateway(env);
    key = await createKey(env, 'github-e2e');
  });
  after(async () => {
    await gateway?.stop();
    await github?.close();
  });

  it('hands the job to GitHub: branch job/<id> from the default branch, with logs/<id>/job.md holding the prompt', async () => {
    const created = await send<{ job_id: string; branch: string; status: string }>(`${gateway.url}/api/create-job`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ job: 'Upgrade the parser' }),
    });
    expect(created.status).to.equal(200);
    const id = created.body.job_id;
    const file = await waitFor(() => github.calls.find((c) => c.method === 'PUT' && c.path.includes(id)), 15_000, 'the job file on GitHub');
    expect(await status(id)).to.include({ status: 'running', summary: `Handed to GitHub Actions on job/${id}` });
    const ref = github.calls.find((c) => c.method === 'POST' && c.path === '/repos/acme/app/git/refs');
    expect(ref?.body).to.deep.equal({ ref: `refs/heads/job/${id}`, sha: 'c0ffee' });
    expect(file?.path).to.equal(`/repos/acme/app/contents/logs/${id}/job.md`);
    expect(file?.body.branch).to.equal(`job/${id}`);
    expect(Buffer.from(String(file?.body.content), 'base64').toString('utf8')).to.contain('Upgrade the parser');
    expect(github.calls.every((c) => c.authorization === 'Bearer ghp_e2e')).to.equal(true);
  });

  it('moves the job with signed events: run URL, PR URL, then succeeded; a late event changes nothing', async () => {
    const created = await send<{ job_id: string }>(`${gateway.url}/api/create-job`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ job: 'Fix the docs' }),
    });
    const id = created.body.job_id;
    const branch = `job/${id}`;
    await handedOver(id);
    const run = (action: string, conclusion: string | null) => ({
      action,
      workflow_run: {
        id: 77,
        html_url: 'https://github.com/acme/app/actions/runs/77',
        head_branch: branch,
        head_sha: 'abc',
        status: action === 'completed' ? 'completed' : 'in_progress',
        conclusion,
        head_repository: { full_name: 'acme/app' },
        path: '.github/workflows/agent-job.yml',
      },
      repository: { full_name: 'acme/app' },
    });
    expect((await deliver('workflow_run', run('in_progress', null))).body).to.deep.equal({ ok: true, triggers: [], job: id });
    expect(await status(id)).to.include({ status: 'running', run_url: 'https://github.com/acme/app/actions/runs/77' });
    await deliver('pull_request', {
      action: 'opened',
      number: 5,
      pull_request: {
        html_url: 'https://github.com/acme/app/pull/5',
        merged: false,
        head: { ref: branch, sha: 'abc', repo: { full_name: 'acme/app' } },
        base: { ref: 'main', repo: { full_name: 'acme/app' } },
      },
      repository: { full_name: 'acme/app' },
    });
    await deliver('workflow_run', run('completed', 'success'));
    expect(await status(id)).to.include({
      status: 'succeeded',
      pr_url: 'https://github.com/acme/app/pull/5',
      run_url: 'https://github.com/acme/app/actions/runs/77',
    });
    await deliver('workflow_run', run('completed', 'failure'));
    expect((await status(id)).status).to.equal('succeeded');
  });

  it('refuses a forged event: 401, and the job does not move', async () => {
    const created = await send<{ job_id: string }>(`${gateway.url}/api/create-job`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ job: 'Anything' }),
    });
    const id = created.body.job_id;
    await handedOver(id);
    const body = JSON.stringify({ action: 'completed', workflow_run: { head_branch: `job/${id}`, status: 'completed', conclusion: 'success', html_url: 'x' } });
    const forged = await send(`${gateway.url}/api/codehost/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-github-event': 'workflow_run', 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` },
      body,
    });
    expect(forged).to.deep.equal({ status: 401, body: { error: 'Unauthorized' } });
    expect((await status(id)).status).to.equal('running');
  });
});

describe('e2e: job polling across a stop', function () {
  this.timeout(60_000);

  it('a graceful stop gives the job poll lease up, so that another replica polls at once', async () => {
    const github = await startFakeGithub();
    const dir = await migratedDataDir('github-poll-lease');
    const env = {
      DATA_DIR: dir,
      TRIGGERS_FILE: join(dir, 'none.json'),
      CODEHOST_TOKEN: 'ghp_e2e',
      CODEHOST_REPO: 'acme/app',
      CODEHOST_API_URL: github.url,
      CODEHOST_WEBHOOK_SECRET: SECRET,
      CODEHOST_POLL_SECONDS: '5',
    };
    let gateway: GatewayProcess | undefined;
    try {
      gateway = await startGateway(env);
      const key = await createKey(env, 'poll-lease');
      const created = await send<{ job_id: string }>(`${gateway.url}/api/create-job`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ job: 'Poll me' }),
      });
      // The first poll (5 s after the start) asks GitHub about the running job's runs: it holds the lease then.
      await waitFor(() => github.calls.some((c) => c.method === 'GET' && c.path.includes('/actions/workflows/')), 30_000, 'a poll of the running job');
      expect(created.status).to.equal(200);
      expect(await gateway.stop()).to.equal(0);
      gateway = undefined;
    } finally {
      await gateway?.stop();
      await github.close();
    }
    const database = await Database.open({ databaseUrl: undefined, dataDir: dir, logger: new PinoLogger(createPino('silent')) });
    try {
      const rows = await database.orm.em.getConnection().execute<Array<{ holder: string | null }>>("select holder from poller_leases where name = 'jobs:poll'");
      expect(rows, 'the lease was taken').to.have.length(1);
      expect(rows[0].holder, 'the lease was given up').to.equal(null);
    } finally {
      await database.close();
    }
  });
});
