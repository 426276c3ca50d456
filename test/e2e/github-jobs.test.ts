import { expect } from 'chai';
import { createHmac, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { migratedDataDir, openPglite } from '../support/data-dirs.js';
import { createKey, send, waitFor } from '../support/http.js';
import { FAKE_GITHUB_TOKEN, type FakeGithub, MAIN_SHA, startFakeGithub } from '../support/fake-github.js';

/**
 * Jobs on GitHub Actions, end to end: the built server hands a job to a loopback fake of
 * the GitHub REST API (branch job/<id> created at a commit adding logs/<id>/job.md), then signed code-host events move
 * the job: workflow_run in progress → running with its run URL, pull_request → its PR URL,
 * workflow_run completed/success → succeeded.
 */

const SECRET = 'e2e-hook-secret';

describe('e2e: jobs on GitHub Actions (fake GitHub REST, signed events)', function () {
  this.timeout(60_000);
  let github: FakeGithub;
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
  /** The job is handed over once its branch is on the fake GitHub. */
  const handedOver = (id: string) => waitFor(() => github.refs.get(`refs/heads/job/${id}`), 15_000, 'the job to be handed over');
  const status = async (id: string) =>
    (await send<Record<string, unknown>>(`${gateway.url}/api/jobs/status?job_id=${id}`, { headers: { 'x-api-key': key } })).body;

  before(async () => {
    github = await startFakeGithub();
    const dir = await migratedDataDir('github');
    const env = {
      DATA_DIR: dir,
      TRIGGERS_FILE: join(dir, 'none.json'),
      CODEHOST_TOKEN: FAKE_GITHUB_TOKEN,
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
    const head = await handedOver(id);
    expect(await status(id)).to.include({ status: 'running', summary: `Handed to GitHub Actions on job/${id}` });
    // One push: the branch is created at a commit on main's head that already holds job.md.
    const refs = github.calls.filter((c) => c.method === 'POST' && c.path === '/repos/acme/app/git/refs');
    expect(refs.map((c) => c.body)).to.deep.equal([{ ref: `refs/heads/job/${id}`, sha: head }]);
    expect(github.commits.get(head)?.parents).to.deep.equal([MAIN_SHA]);
    expect(github.filesOf(head)?.get(`logs/${id}/job.md`)).to.contain('Upgrade the parser');
    expect(github.calls.filter((c) => c.method === 'PUT')).to.deep.equal([]);
    expect(github.calls.every((c) => c.headers.authorization === `Bearer ${FAKE_GITHUB_TOKEN}`)).to.equal(true);
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
      CODEHOST_TOKEN: FAKE_GITHUB_TOKEN,
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
    // Read on the embedded database as the service opens it, without the ORM (half a second, not seconds).
    const database = await openPglite(join(dir, 'pglite'));
    try {
      const { rows } = await database.query<{ holder: string | null }>("select holder from poller_leases where name = 'jobs:poll'");
      expect(rows, 'the lease was taken').to.have.length(1);
      expect(rows[0].holder, 'the lease was given up').to.equal(null);
    } finally {
      await database.close();
    }
  });
});
