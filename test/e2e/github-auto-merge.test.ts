import { expect } from 'chai';
import { createHmac, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { FAKE_GITHUB_TOKEN, type FakeGithub, type FakePull, startFakeGithub } from '../support/fake-github.js';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { migratedDataDir } from '../support/data-dirs.js';
import { createKey, send, waitFor } from '../support/http.js';

/**
 * Auto-merge of job pull requests (AUTO_MERGE, issue 17.6), end to end: the built server with
 * jobs on a loopback fake of the GitHub REST API. A job is handed over, its pull request is
 * announced by a signed `pull_request` event and its workflow finishes (`workflow_run`
 * completed/success); the gateway then reads the files of the pull's head commit (compare
 * main...head) and that commit's check runs and combined status, and merges it at that commit — or leaves it open and says why in the job's summary.
 */

const SECRET = 'e2e-auto-merge-secret';
const PASSED = [
  { name: 'agent-job', status: 'completed', conclusion: 'success' },
  { name: 'lint', status: 'completed', conclusion: 'skipped' },
];

describe('e2e: auto-merge of job pull requests (AUTO_MERGE, fake GitHub REST)', function () {
  this.timeout(60_000);
  let github: FakeGithub;
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

  /** A job whose pull request (into `base`, main unless given) changes `files` with `checkRuns`, carried through to a successful workflow run. */
  const finishJob = async (files: string[], checkRuns: FakePull['checkRuns'], base = 'main'): Promise<{ id: string; pull: FakePull }> => {
    const created = await send<{ job_id: string }>(`${gateway.url}/api/create-job`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ job: 'Write the weekly log' }),
    });
    expect(created.status).to.equal(200);
    const id = created.body.job_id;
    const branch = `job/${id}`;
    await waitFor(() => github.refs.get(`refs/heads/${branch}`), 15_000, 'the job to be handed over');
    const pull: FakePull = { number: nextPull++, branch, sha: `sha-${id.slice(0, 8)}`, files, checkRuns, base, open: true, merged: false };
    github.pulls.set(pull.number, pull);
    const opened = await deliver('pull_request', {
      action: 'opened',
      number: pull.number,
      pull_request: {
        html_url: `https://github.com/acme/app/pull/${pull.number}`,
        merged: false,
        head: { ref: branch, sha: pull.sha, repo: { full_name: 'acme/app' } },
        base: { ref: base, repo: { full_name: 'acme/app' } },
      },
      repository: { full_name: 'acme/app' },
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
        head_repository: { full_name: 'acme/app' },
        path: '.github/workflows/agent-job.yml',
      },
      repository: { full_name: 'acme/app' },
    });
    expect(completed.body).to.deep.equal({ ok: true, triggers: [], job: id });
    return { id, pull };
  };
  const merges = (pull: FakePull) => github.calls.filter((c) => c.method === 'PUT' && c.path === `/repos/acme/app/pulls/${pull.number}/merge`);
  const autoMergeLine = async (id: string, prefix: string) =>
    waitFor(async () => ((await job(id)).summary ?? '').split('\n').find((line) => line.startsWith(prefix)), 20_000, `"${prefix}" in the summary`);

  before(async () => {
    github = await startFakeGithub();
    const dir = await migratedDataDir('github-auto-merge');
    const env = {
      DATA_DIR: dir,
      TRIGGERS_FILE: join(dir, 'none.json'),
      CODEHOST_TOKEN: FAKE_GITHUB_TOKEN,
      CODEHOST_REPO: 'acme/app',
      CODEHOST_API_URL: github.url,
      CODEHOST_WEBHOOK_SECRET: SECRET,
      AUTO_MERGE: 'true',
      ALLOWED_PATHS: 'logs/**, docs/weekly/*.md',
    };
    gateway = await startGateway(env);
    key = await createKey(env, 'auto-merge-e2e');
  });
  after(async () => {
    await gateway?.stop();
    await github?.close();
  });

  it('merges the pull request when every file its head changes is under ALLOWED_PATHS and its checks passed', async () => {
    const files = [...Array.from({ length: 140 }, (_, i) => `logs/run/${i}.txt`), 'docs/weekly/2026-47.md'];
    const { id, pull } = await finishJob(files, PASSED);
    expect(await autoMergeLine(id, 'Auto-merge: merged')).to.equal(`Auto-merge: merged pull request #${pull.number}`);
    expect(pull.merged).to.equal(true);
    expect(merges(pull).map((call) => call.body)).to.deep.equal([{ sha: pull.sha }]);
    const fileCalls = github.calls.filter((c) => c.path.includes('/compare/') || c.path.includes('/files')).map((c) => c.path);
    expect(fileCalls).to.deep.equal([`/repos/acme/app/compare/main...${pull.sha}`]);
    expect((await job(id)).status).to.equal('succeeded');
    for (const call of github.calls) {
      expect(call.headers, call.path).to.include({
        accept: 'application/vnd.github+json',
        'x-github-api-version': '2022-11-28',
        authorization: `Bearer ${FAKE_GITHUB_TOKEN}`,
      });
    }
  });

  it('leaves the pull request open when a file is outside ALLOWED_PATHS, and the summary names it', async () => {
    const { id, pull } = await finishJob(['logs/run/1.txt', 'src/server.ts', 'docs/weekly/deep/x.md'], PASSED);
    expect(await autoMergeLine(id, 'Auto-merge: not merged')).to.equal(
      `Auto-merge: not merged: pull request #${pull.number} changes 2 files outside ALLOWED_PATHS (logs/**, docs/weekly/*.md): src/server.ts, docs/weekly/deep/x.md`,
    );
    expect(merges(pull)).to.deep.equal([]);
    expect(pull.merged).to.equal(false);
  });

  it('checks the files of the very commit it merges: a force-push to a clean commit while the files are read does not get the first one merged (review L4)', async () => {
    const number = nextPull;
    let pushed = false;
    github.onRequest = (call) => {
      const pull = github.pulls.get(number);
      if (!pull) return;
      const listing = call.path === `/repos/acme/app/pulls/${number}` || call.path.startsWith('/repos/acme/app/compare/');
      if (listing && !pushed) {
        // Someone with push access force-pushes a clean commit as the files are read…
        pushed = true;
        github.commitFiles.set(pull.sha, pull.files);
        github.pulls.set(number, { ...pull, sha: 'clean00000000000000000000000000000000000', files: ['logs/run/5.txt'] });
        github.onRequest = (next) => {
          // …and puts the first one back before its checks are read and the merge is made.
          if (next.path.includes(`/commits/${pull.sha}/`)) github.pulls.set(number, pull);
        };
      }
    };
    try {
      const { id, pull } = await finishJob(['logs/run/5.txt', '.github/workflows/deploy.yml'], PASSED);
      expect(pull.number).to.equal(number);
      expect(await autoMergeLine(id, 'Auto-merge: not merged')).to.equal(
        `Auto-merge: not merged: pull request #${number} changes a file outside ALLOWED_PATHS (logs/**, docs/weekly/*.md): .github/workflows/deploy.yml`,
      );
      expect(pushed).to.equal(true);
      expect(merges(pull)).to.deep.equal([]);
      expect(github.pulls.get(number)?.merged).to.equal(false);
    } finally {
      github.onRequest = undefined;
    }
  });

  it('leaves the pull request open when a check failed, and the summary names the check', async () => {
    const { id, pull } = await finishJob(['logs/run/2.txt'], [...PASSED, { name: 'tests', status: 'completed', conclusion: 'failure' }]);
    expect(await autoMergeLine(id, 'Auto-merge: not merged')).to.equal(
      `Auto-merge: not merged: pull request #${pull.number} has failed checks: tests (failure)`,
    );
    expect(merges(pull)).to.deep.equal([]);
    expect(pull.merged).to.equal(false);
  });

  it('does not merge a pull request whose head has no check at all: it waits, and merges when a completed check suite brings passed checks', async () => {
    const { id, pull } = await finishJob(['logs/run/3.txt'], []);
    expect(await autoMergeLine(id, 'Auto-merge: waiting')).to.equal(
      `Auto-merge: waiting for checks of pull request #${pull.number}: none has started (no check run or status on its head)`,
    );
    expect(merges(pull)).to.deep.equal([]);
    // The repository's CI reports on the head: the next event has auto-merge look again.
    github.pulls.set(pull.number, { ...pull, checkRuns: PASSED });
    const suite = await deliver('check_suite', {
      action: 'completed',
      check_suite: {
        id: 900 + pull.number,
        head_branch: pull.branch,
        head_sha: pull.sha,
        status: 'completed',
        conclusion: 'success',
        updated_at: new Date().toISOString(),
      },
      repository: { full_name: 'acme/app' },
    });
    expect(suite.status).to.equal(200);
    expect(await autoMergeLine(id, 'Auto-merge: merged')).to.equal(`Auto-merge: merged pull request #${pull.number}`);
    expect(github.pulls.get(pull.number)?.merged).to.equal(true);
  });

  it('leaves a pull request into another branch than the default one open, whatever its files and checks', async () => {
    const { id, pull } = await finishJob(['logs/run/4.txt'], PASSED, 'release');
    expect(await autoMergeLine(id, 'Auto-merge: not merged')).to.equal(
      `Auto-merge: not merged: pull request #${pull.number} is into release, not the default branch main`,
    );
    expect(merges(pull)).to.deep.equal([]);
  });
});
