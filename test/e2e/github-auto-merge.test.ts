import { expect } from 'chai';
import { createHmac, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startGateway, tempDir, type GatewayProcess } from '../support/gateway-process.js';
import { createKey, send, waitFor } from '../support/http.js';

/**
 * Auto-merge of job pull requests (AUTO_MERGE, issue 17.6), end to end: the built server with
 * jobs on a loopback fake of the GitHub REST API. A job is handed over, its pull request is
 * announced by a signed `pull_request` event and its workflow finishes (`workflow_run`
 * completed/success); the gateway then reads the pull's files (paginated) and its head's check
 * runs and combined status, and merges it — or leaves it open and says why in the job's summary.
 */

interface Pull {
  readonly number: number;
  readonly branch: string;
  readonly sha: string;
  readonly files: string[];
  readonly checkRuns: Array<{ name: string; status: string; conclusion: string | null }>;
  merged: boolean;
}

interface Call {
  readonly method: string;
  readonly path: string;
  readonly body: Record<string, unknown>;
}

const startFakeGithub = async () => {
  const calls: Call[] = [];
  const pulls = new Map<number, Pull>();
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const url = new URL(req.url ?? '', 'http://github.test');
      const path = url.pathname;
      calls.push({ method: req.method ?? '', path: req.url ?? '', body: raw ? (JSON.parse(raw) as Record<string, unknown>) : {} });
      const json = (status: number, body: unknown): void => void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.headers.authorization !== 'Bearer ghp_e2e' || !req.headers['user-agent']) return json(401, { message: 'Bad credentials' });
      const page = Number(url.searchParams.get('page') ?? '1');
      const perPage = Number(url.searchParams.get('per_page') ?? '30');
      const pageOf = <T>(items: T[]): T[] => items.slice((page - 1) * perPage, page * perPage);
      let match: RegExpExecArray | null;
      if (req.method === 'GET' && path === '/repos/acme/app') return json(200, { full_name: 'acme/app', default_branch: 'main' });
      if (req.method === 'GET' && path === '/repos/acme/app/git/ref/heads/main') return json(200, { ref: 'refs/heads/main', object: { sha: 'c0ffee' } });
      if (req.method === 'POST' && path === '/repos/acme/app/git/refs') return json(201, { ref: JSON.parse(raw).ref, object: { sha: 'c0ffee' } });
      if (req.method === 'PUT' && path.startsWith('/repos/acme/app/contents/logs/')) return json(201, { content: { path }, commit: { sha: 'beef' } });
      if (req.method === 'GET' && path === '/repos/acme/app/actions/runs') return json(200, { total_count: 0, workflow_runs: [] });
      if (req.method === 'GET' && path === '/repos/acme/app/pulls') {
        const head = url.searchParams.get('head') ?? '';
        const found = [...pulls.values()].filter((pull) => `acme:${pull.branch}` === head);
        return json(
          200,
          found.map((pull) => ({
            number: pull.number,
            html_url: `https://github.com/acme/app/pull/${pull.number}`,
            state: pull.merged ? 'closed' : 'open',
            merged_at: pull.merged ? '2026-11-24T12:00:00Z' : null,
            head: { ref: pull.branch, sha: pull.sha },
          })),
        );
      }
      if (req.method === 'GET' && (match = /^\/repos\/acme\/app\/pulls\/(\d+)\/files$/.exec(path))) {
        const pull = pulls.get(Number(match[1]));
        return pull
          ? json(
              200,
              pageOf(pull.files).map((filename) => ({ filename, status: 'added' })),
            )
          : json(404, { message: 'Not Found' });
      }
      if (req.method === 'GET' && (match = /^\/repos\/acme\/app\/commits\/([^/]+)\/check-runs$/.exec(path))) {
        const runs = [...pulls.values()].find((pull) => pull.sha === match![1])?.checkRuns ?? [];
        return json(200, { total_count: runs.length, check_runs: pageOf(runs) });
      }
      if (req.method === 'GET' && /^\/repos\/acme\/app\/commits\/[^/]+\/status$/.test(path))
        return json(200, { state: 'pending', total_count: 0, statuses: [] });
      if (req.method === 'PUT' && (match = /^\/repos\/acme\/app\/pulls\/(\d+)\/merge$/.exec(path))) {
        const pull = pulls.get(Number(match[1]));
        if (!pull) return json(404, { message: 'Not Found' });
        if (JSON.parse(raw).sha !== pull.sha) return json(409, { message: 'Head branch was modified. Review and try the merge again.' });
        pull.merged = true;
        return json(200, { sha: 'm3rg3d', merged: true, message: 'Pull Request successfully merged' });
      }
      json(404, { message: 'Not Found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    pulls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

const SECRET = 'e2e-auto-merge-secret';
const PASSED = [
  { name: 'agent-job', status: 'completed', conclusion: 'success' },
  { name: 'lint', status: 'completed', conclusion: 'skipped' },
];

describe('e2e: auto-merge of job pull requests (AUTO_MERGE, fake GitHub REST)', function () {
  this.timeout(60_000);
  let github: Awaited<ReturnType<typeof startFakeGithub>>;
  let gateway: GatewayProcess;
  let key: string;
  let nextPull = 10;

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
  const job = async (id: string) =>
    (
      await send<{ status: string; summary: string | null; pr_url: string | null }>(`${gateway.url}/api/jobs/status?job_id=${id}`, {
        headers: { 'x-api-key': key },
      })
    ).body;

  /** A job whose pull request changes `files` with `checkRuns`, carried through to a successful workflow run. */
  const finishJob = async (files: string[], checkRuns: Pull['checkRuns']): Promise<{ id: string; pull: Pull }> => {
    const created = await send<{ job_id: string }>(`${gateway.url}/api/create-job`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ job: 'Write the weekly log' }),
    });
    expect(created.status).to.equal(200);
    const id = created.body.job_id;
    const branch = `job/${id}`;
    await waitFor(() => github.calls.find((c) => c.method === 'PUT' && c.path.includes(id)), 15_000, 'the job to be handed over');
    const pull: Pull = { number: nextPull++, branch, sha: `sha-${id.slice(0, 8)}`, files, checkRuns, merged: false };
    github.pulls.set(pull.number, pull);
    const opened = await deliver('pull_request', {
      action: 'opened',
      number: pull.number,
      pull_request: { html_url: `https://github.com/acme/app/pull/${pull.number}`, merged: false, head: { ref: branch, sha: pull.sha }, base: { ref: 'main' } },
    });
    expect(opened.status).to.equal(200);
    const completed = await deliver('workflow_run', {
      action: 'completed',
      workflow_run: {
        id: 1,
        html_url: 'https://github.com/acme/app/actions/runs/1',
        head_branch: branch,
        head_sha: pull.sha,
        status: 'completed',
        conclusion: 'success',
      },
    });
    expect(completed.body).to.deep.equal({ ok: true, triggers: [], job: id });
    return { id, pull };
  };
  const merges = (pull: Pull) => github.calls.filter((c) => c.method === 'PUT' && c.path === `/repos/acme/app/pulls/${pull.number}/merge`);
  const autoMergeLine = async (id: string, prefix: string) =>
    waitFor(async () => ((await job(id)).summary ?? '').split('\n').find((line) => line.startsWith(prefix)), 20_000, `"${prefix}" in the summary`);

  before(async () => {
    github = await startFakeGithub();
    const dir = await tempDir('github-auto-merge');
    const env = {
      DATA_DIR: dir,
      TRIGGERS_FILE: join(dir, 'none.json'),
      CODEHOST_TOKEN: 'ghp_e2e',
      CODEHOST_REPO: 'acme/app',
      CODEHOST_API_URL: github.url,
      CODEHOST_WEBHOOK_SECRET: SECRET,
      AUTO_MERGE: 'true',
      ALLOWED_PATHS: 'logs/**, docs/weekly/*.md',
    };
    key = await createKey(env, 'auto-merge-e2e');
    gateway = await startGateway(env);
  });
  after(async () => {
    await gateway?.stop();
    await github?.close();
  });

  it('merges the pull request when every changed file is under ALLOWED_PATHS (all pages of files read) and its checks passed', async () => {
    const files = [...Array.from({ length: 140 }, (_, i) => `logs/run/${i}.txt`), 'docs/weekly/2026-47.md'];
    const { id, pull } = await finishJob(files, PASSED);
    expect(await autoMergeLine(id, 'Auto-merge: merged')).to.equal(`Auto-merge: merged pull request #${pull.number}`);
    expect(pull.merged).to.equal(true);
    expect(merges(pull).map((call) => call.body)).to.deep.equal([{ sha: pull.sha }]);
    const filePages = github.calls.filter((c) => c.path.startsWith(`/repos/acme/app/pulls/${pull.number}/files`)).map((c) => c.path);
    expect(filePages).to.deep.equal([
      `/repos/acme/app/pulls/${pull.number}/files?per_page=100&page=1`,
      `/repos/acme/app/pulls/${pull.number}/files?per_page=100&page=2`,
    ]);
    expect((await job(id)).status).to.equal('succeeded');
  });

  it('leaves the pull request open when a file is outside ALLOWED_PATHS, and the summary names it', async () => {
    const { id, pull } = await finishJob(['logs/run/1.txt', 'src/server.ts', 'docs/weekly/deep/x.md'], PASSED);
    expect(await autoMergeLine(id, 'Auto-merge: not merged')).to.equal(
      `Auto-merge: not merged: pull request #${pull.number} changes 2 files outside ALLOWED_PATHS (logs/**, docs/weekly/*.md): src/server.ts, docs/weekly/deep/x.md`,
    );
    expect(merges(pull)).to.deep.equal([]);
    expect(pull.merged).to.equal(false);
  });

  it('leaves the pull request open when a check failed, and the summary names the check', async () => {
    const { id, pull } = await finishJob(['logs/run/2.txt'], [...PASSED, { name: 'tests', status: 'completed', conclusion: 'failure' }]);
    expect(await autoMergeLine(id, 'Auto-merge: not merged')).to.equal(
      `Auto-merge: not merged: pull request #${pull.number} has failed checks: tests (failure)`,
    );
    expect(merges(pull)).to.deep.equal([]);
    expect(pull.merged).to.equal(false);
  });
});
