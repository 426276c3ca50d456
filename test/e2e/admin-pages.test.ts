import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { adminClient, cookieFrom, setAdminPassword } from '../support/admin-http.js';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-open-ai.js';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { migratedDataDir } from '../support/data-dirs.js';
import { createKey, send, waitFor } from '../support/http.js';
import { closedPort } from '../support/ports.js';

/*
 * The admin pages over HTTP on the built server: creating a key (the form's answer shows it, no
 * cookie carries it), Post/Redirect/Get and its flash, the run page of a trigger run, cancelling
 * a job (its output kept), the job page's live part, the web chat and its failures (against a
 * loopback OpenAI-compatible fake), the health page's tables.
 */

const PASSWORD = 'pages admin password';

/** An API key, wherever it is written. */
const KEY = /agw_[A-Za-z0-9_-]{43}/;

/**
 * The Set-Cookie lines of an answer that hold an API key: as it is, or in a part of the value
 * written in base64url (as a signed flash cookie writes its value).
 */
const keyCookies = (response: Response): string[] =>
  response.headers.getSetCookie().filter((line) => {
    const value = line.slice(line.indexOf('=') + 1).split(';')[0];
    const parts = value.split('.').map((part) => Buffer.from(part, 'base64url').toString('utf8'));
    return [line, ...parts].some((text) => KEY.test(text));
  });

/**
 * The agent: a job whose prompt asks it to wait prints its first step, then says so with the
 * file `<markers>/<job id>`, and runs until it is cancelled. A job is `running` from its first
 * git step on, before the agent has printed anything; a test that needs the agent's output
 * waits for the file.
 */
const agent = (markers: string): string =>
  `case "$JOB_PROMPT" in *"wait for cancel"*) echo "step one done"; : > '${markers}'/"$JOB_ID"; sleep 30;; *) echo "agent did it";; esac`;

const TRIGGERS = [
  {
    name: 'deploy',
    watch_path: '/webhook',
    enabled: true,
    actions: [
      { type: 'command', command: 'echo "deploying {{body.branch}}"; echo "fatal: no such branch" >&2; exit 3' },
      { type: 'agent', job: 'Summarize the deployment of {{body.branch}}' },
    ],
  },
];

describe('e2e: admin pages', function () {
  this.timeout(90_000);
  let gateway: GatewayProcess;
  let llm: FakeOpenAi;
  let env: Record<string, string>;
  let apiKey: string;
  let markers: string;

  const client = () => adminClient(gateway.url);
  const login = () => client().login(PASSWORD);
  const text = async (response: Response | Promise<Response>): Promise<string> => (await response).text();
  const logLine = (message: string, requestId: string) =>
    gateway.logLine((line) => line.msg === message && line.reqId === requestId, `"${message}" of request ${requestId}`);

  before(async () => {
    const dir = await migratedDataDir('admin-pages');
    llm = await startFakeOpenAi();
    await writeFile(join(dir, 'triggers.json'), JSON.stringify(TRIGGERS));
    markers = join(dir, 'agent-markers');
    await mkdir(markers);
    env = {
      DATA_DIR: dir,
      TRIGGERS_FILE: join(dir, 'triggers.json'),
      TRIGGERS_DIR: dir,
      LLM_PROVIDER: 'custom',
      LLM_BASE_URL: llm.baseUrl,
      LLM_MODEL: 'fake-model',
      LLM_MAX_RETRIES: '0',
      JOB_AGENT_COMMAND: agent(markers),
      JOB_CONCURRENCY: '4',
    };
    gateway = await startGateway(env);
    expect(await setAdminPassword(env, PASSWORD)).to.equal(0);
    apiKey = await createKey(env, 'pages');
  });
  after(async () => {
    await gateway?.stop();
    await llm?.close();
  });

  describe('creating a key', () => {
    it('answers the form with the page that shows the new key once (201, no-store, the security headers of every admin page), and no answer of the flow carries the key in a cookie', async () => {
      const { cookie, csrf } = await login();
      const form = await client().get('/settings/keys', cookie);
      const created = await client().post('/settings/keys', { csrf, name: 'shown <once>' }, cookie);
      expect(keyCookies(created), 'Set-Cookie lines of the answer holding a key').to.deep.equal([]);
      expect(created.status).to.equal(201);
      expect(created.headers.get('location')).to.equal(null);
      expect(created.headers.get('content-type')).to.equal('text/html; charset=utf-8');
      expect(created.headers.get('cache-control')).to.equal('no-store');
      for (const header of ['cache-control', 'x-frame-options', 'content-security-policy', 'referrer-policy', 'x-content-type-options']) {
        expect(created.headers.get(header), header).to.be.a('string').and.to.equal(form.headers.get(header));
      }
      const page = await created.text();
      expect(page).to.contain('Key <strong>shown &lt;once&gt;</strong> created.');
      const key = /id="new-key">([^<]+)</.exec(page)![1];
      expect(key).to.match(KEY);
      expect(page.match(/<td data-label="Name">shown &lt;once&gt;<\/td>/g), 'listed below').to.have.length(1);

      expect(keyCookies(form), 'Set-Cookie lines of the form holding a key').to.deep.equal([]);

      // The next page (with the cookies the browser holds now), and another session's: the key listed, not shown.
      const other = await login();
      for (const [what, response] of [
        ['the next page', await client().get('/settings/keys', cookie)],
        ["another session's page", await client().get('/settings/keys', other.cookie)],
      ] as const) {
        expect(keyCookies(response), `Set-Cookie lines of ${what} holding a key`).to.deep.equal([]);
        expect(await response.text(), what)
          .to.contain('shown &lt;once&gt;')
          .and.not.to.contain(key)
          .and.not.to.contain('id="new-key"');
      }
      expect((await fetch(`${gateway.url}/api/jobs/status`, { headers: { 'x-api-key': key } })).status, 'the key works').to.equal(200);
    });

    it('answers a refused key name with 303 and shows why once, to the session that sent it only', async () => {
      const { cookie, csrf } = await login();
      const refused = await client().post('/settings/keys', { csrf, name: '   ' }, cookie);
      expect(refused.status).to.equal(303);
      const flash = cookieFrom(refused, 'agw_flash')!;
      const other = await login();
      expect(await text(client().get('/settings/keys', `${other.cookie}; ${flash}`)), 'the flash of another session').not.to.contain('class="error"');
      expect(await text(client().get('/settings/keys', `${cookie}; ${flash}`))).to.match(/<p class="error" role="alert">[^<]+<\/p>/);
      expect(await text(client().get('/settings/keys', cookie))).not.to.contain('class="error"');
    });
  });

  describe('Post/Redirect/Get', () => {
    it('answers a chat message with 303; the page shows the exchange once however often it is reloaded, and the model was asked once', async () => {
      llm.script([{ text: 'Hello from the <b>agent</b>.' }]);
      const asked = llm.requests.length;
      const { cookie, csrf } = await login();
      const sent = await client().post('/settings/chat', { csrf, message: 'Hi <there>' }, cookie);
      expect(sent.status).to.equal(303);
      expect(sent.headers.get('location')).to.equal('/settings/chat');
      for (let reload = 0; reload < 3; reload++) {
        const page = await text(client().get('/settings/chat', cookie));
        expect(page.match(/<strong>You:<\/strong>/g)).to.have.length(1);
        expect(page).to.contain('Hi &lt;there&gt;').and.to.contain('Hello from the &lt;b&gt;agent&lt;/b&gt;.');
      }
      expect(llm.requests.length).to.equal(asked + 1);
    });
  });

  describe("web chat failures: a specific message naming what to check, never the provider's text; the cause logged under the request id", () => {
    /** The page's flash (what a failed assertion prints): the message the user was shown. */
    const shown = (page: string): string => /<p class="(?:error|notice)" role="(?:alert|status)">([\s\S]*?)<\/p>/.exec(page)?.[1] ?? 'no message on the page';
    const chatFailure = async (): Promise<{ page: string; requestId: string }> => {
      const { cookie, csrf } = await login();
      const sent = await client().post('/settings/chat', { csrf, message: 'Are you there?' }, cookie);
      expect(sent.status).to.equal(303);
      const page = await text(client().get('/settings/chat', `${cookie}; ${cookieFrom(sent, 'agw_flash')}`));
      return { page, requestId: sent.headers.get('x-request-id')! };
    };

    it('a provider refusing the key (401): check the API key and the model', async () => {
      llm.script([
        { status: 401, body: { error: { message: 'Incorrect API key provided: sk-secret-1234', type: 'invalid_request_error', code: 'invalid_api_key' } } },
      ]);
      const { page, requestId } = await chatFailure();
      expect(page, shown(page)).to.contain('The AI provider refused the request (HTTP 401). Check the API key').and.to.contain('LLM_MODEL');
      expect(page).to.contain(`request id ${requestId}`);
      expect(page).not.to.contain('Incorrect API key').and.not.to.contain('sk-secret');
      expect(await logLine('web chat message could not be answered', requestId)).to.include({ reason: 'refused', httpStatus: 401 });
    });

    it('an overloaded provider (503): try again later', async () => {
      llm.script([{ status: 503, body: { error: { message: 'overloaded', type: 'server_error', code: null } } }]);
      const { page, requestId } = await chatFailure();
      expect(page, shown(page)).to.contain('The AI provider is overloaded or failing (HTTP 503)');
      expect(await logLine('web chat message could not be answered', requestId)).to.include({ reason: 'unavailable', httpStatus: 503 });
    });

    describe('with a base URL where nothing listens', () => {
      let unreachable: GatewayProcess | undefined;
      before(async () => {
        const dir = await migratedDataDir('admin-unreachable');
        const unreachableEnv = {
          DATA_DIR: dir,
          TRIGGERS_FILE: join(dir, 'none.json'),
          LLM_PROVIDER: 'custom',
          LLM_BASE_URL: `http://127.0.0.1:${await closedPort()}/v1`,
          LLM_MODEL: 'm',
          LLM_MAX_RETRIES: '0',
        };
        unreachable = await startGateway(unreachableEnv);
        expect(await setAdminPassword(unreachableEnv, PASSWORD)).to.equal(0);
      });
      after(() => unreachable?.stop());

      it('the provider could not be reached: check the base URL and the network', async () => {
        const other = adminClient(unreachable!.url);
        const { cookie, csrf } = await other.login(PASSWORD);
        const sent = await other.post('/settings/chat', { csrf, message: 'Anyone?' }, cookie);
        expect(sent.status).to.equal(303);
        const requestId = sent.headers.get('x-request-id')!;
        const page = await text(other.get('/settings/chat', `${cookie}; ${cookieFrom(sent, 'agw_flash')}`));
        expect(page, shown(page)).to.contain('The AI provider could not be reached. Check its base URL (LLM_BASE_URL');
        expect(page).to.contain(`request id ${requestId}`);
        const logged = await unreachable!.logLine(
          (line) => line.msg === 'web chat message could not be answered' && line.reqId === requestId,
          `"web chat message could not be answered" of request ${requestId}`,
        );
        expect(logged).to.include({ reason: 'unreachable' });
      });
    });
  });

  describe('trigger runs', () => {
    /** Fires the deploy trigger and waits until both of its actions are recorded; returns the run page's address. */
    const fireAndWait = async (cookie: string, branch: string, shown = branch.replace(/</g, '&lt;').replace(/>/g, '&gt;')): Promise<string> => {
      const fired = await send(`${gateway.url}/api/webhook`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ branch }),
      });
      expect(fired.status).to.equal(200);
      return waitFor(
        async () => {
          const page = await text(client().get('/settings/triggers', cookie));
          // The newest runs come first; this run is the one whose page shows this branch.
          for (const [, runId] of page.matchAll(/href="\/settings\/runs\/([0-9a-f-]{36})#action-0"/g)) {
            const run = await text(client().get(`/settings/runs/${runId}`, cookie));
            // Both actions recorded with their outcomes (an action is recorded `running` as it
            // starts): the agent action's outcome names the job it started.
            const ended = run.includes('id="action-1"') && run.includes('<a href="/settings/jobs/');
            if (run.includes(shown) && ended) return `/settings/runs/${runId}`;
          }
          return undefined;
        },
        20_000,
        'the run recorded',
      );
    };

    it('shows a failed command on its run page: the template, the value each token got, the exit code, the error and the output', async () => {
      const { cookie } = await login();
      const branch = 'feature/<b>x</b>; rm -rf /';
      const runPage = await fireAndWait(cookie, branch);
      const page = await text(client().get(runPage, cookie));
      expect(page).to.contain('echo &quot;deploying {{body.branch}}&quot;; echo &quot;fatal: no such branch&quot; &gt;&amp;2; exit 3');
      expect(page).to.contain('<code>{{body.branch}}</code>').and.to.contain('<code>AGW_ARG_1</code>');
      expect(page).to.contain('feature/&lt;b&gt;x&lt;/b&gt;; rm -rf /').and.not.to.contain('<b>x</b>');
      expect(page).to.match(/<dt>Exit code<\/dt><dd>3<\/dd>/);
      expect(page).to.contain('exit code 3');
      expect(page).to.contain('deploying feature/&lt;b&gt;x&lt;/b&gt;; rm -rf /\nfatal: no such branch');
      expect(page).to.match(/<span class="badge badge-failed">failed<\/span>/);
      expect(page).to.match(/<dt>Request<\/dt><dd><code>\/api\/webhook<\/code>, received <time datetime="[^"]+">\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/time>/);
      // The agent action links to the job it started.
      expect(page).to.match(/<a href="\/settings\/jobs\/[0-9a-f-]{36}">Job <code>/);
    });

    it('shows bidi and zero-width characters of the request escaped on the run page and the delivery page, as the approvals page does', async () => {
      const { cookie } = await login();
      const branch = 'deploy \u202etsil\u202c ok\u200b';
      const shown = 'deploy \\u202etsil\\u202c ok\\u200b';
      const runPage = await fireAndWait(cookie, branch, shown);
      const page = await text(client().get(runPage, cookie));
      expect(page, 'the value the command got').to.contain(`<pre>${shown}</pre>`);
      expect(page, 'the output').to.contain(`deploying ${shown}\nfatal: no such branch`);
      expect(page).not.to.match(/[\u202e\u202c\u200b]/);
      const deliveries = await text(client().get('/settings/deliveries', cookie));
      const newest = /href="(\/settings\/deliveries\/[0-9a-f-]{36})"/.exec(deliveries)![1];
      const delivery = await text(client().get(newest, cookie));
      expect(delivery, 'the request as stored').to.contain(`&quot;branch&quot;: &quot;${shown}&quot;`);
      expect(delivery).not.to.match(/[\u202e\u202c\u200b]/);
    });

    it('links a failed action in the list of runs to its run page', async () => {
      const { cookie } = await login();
      const runPage = await fireAndWait(cookie, 'list-link');
      const list = await text(client().get('/settings/triggers', cookie));
      expect(list).to.contain(`href="${runPage}#action-0"`);
      expect(list).to.match(new RegExp(`href="${runPage}#action-0"><span class="badge badge-failed">failed</span>`));
    });

    it('answers a run that does not exist, or an id that is none, with a 404 page', async () => {
      const { cookie } = await login();
      expect((await client().get('/settings/runs/30000000-0000-4000-8000-00000000dead', cookie)).status).to.equal(404);
      expect((await client().get('/settings/runs/not-a-run', cookie)).status).to.equal(404);
    });
  });

  describe('jobs', () => {
    const createJob = async (prompt: string): Promise<string> => {
      const created = await send<{ job_id: string }>(`${gateway.url}/api/create-job`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ job: prompt }),
      });
      expect(created.status).to.equal(200);
      return created.body.job_id;
    };
    const statusOf = async (id: string): Promise<string> =>
      (await send<{ status: string }>(`${gateway.url}/api/jobs/status?job_id=${id}`, { headers: { 'x-api-key': apiKey } })).body.status;

    it('cancels a running job after a confirmation page, with 303, and keeps the output the agent wrote until then', async () => {
      const id = await createJob('Please wait for cancel');
      await waitFor(async () => existsSync(join(markers, id)), 20_000, "the agent's first step");
      expect(await statusOf(id)).to.equal('running');
      const { cookie, csrf } = await login();
      const confirm = await text(client().get(`/settings/jobs/${id}/cancel`, cookie));
      expect(confirm).to.contain(`<form method="post" action="/settings/jobs/${id}/cancel">`).and.to.contain('Keep it running');
      const cancelled = await client().post(`/settings/jobs/${id}/cancel`, { csrf }, cookie);
      expect(cancelled.status).to.equal(303);
      expect(cancelled.headers.get('location')).to.equal(`/settings/jobs/${id}`);
      expect(await text(client().get(`/settings/jobs/${id}`, `${cookie}; ${cookieFrom(cancelled, 'agw_flash')}`))).to.contain(
        `Job ${id.slice(0, 8)} cancelled.`,
      );
      const page = await waitFor(
        async () => {
          const shown = await text(client().get(`/settings/jobs/${id}`, cookie));
          return shown.includes('step one done') ? shown : undefined;
        },
        20_000,
        "the cancelled job's log",
      );
      expect(page).to.match(/<span class="badge badge-cancelled">cancelled<\/span>/);
      expect(page, 'a finished job is not refreshed').not.to.contain('hx-get').and.not.to.contain('htmx.min.js');
    });

    it('refreshes the live part of a running job (htmx) and stops once it has finished', async () => {
      const id = await createJob('Please wait for cancel, then stop');
      await waitFor(async () => (await statusOf(id)) === 'running', 20_000, 'the job running');
      const { cookie, csrf } = await login();
      const running = await text(client().get(`/settings/jobs/${id}`, cookie));
      expect(running)
        .to.contain(`hx-get="/settings/jobs/${id}/live" hx-trigger="every 2s"`)
        .and.to.contain('<script src="/settings/static/htmx.min.js" defer></script>');
      const live = await client().get(`/settings/jobs/${id}/live`, cookie, { 'HX-Request': 'true' });
      expect(live.status).to.equal(200);
      const fragment = await live.text();
      expect(fragment)
        .to.match(/^<div id="job-live" hx-get=/)
        .and.not.to.contain('<html');
      await client().post(`/settings/jobs/${id}/cancel`, { csrf }, cookie);
      await waitFor(async () => (await statusOf(id)) === 'cancelled', 20_000, 'the job cancelled');
      expect(await text(client().get(`/settings/jobs/${id}/live`, cookie, { 'HX-Request': 'true' }))).to.match(/^<div id="job-live">/);
    });

    it('sends a live-part request without a session to the login (HX-Redirect)', async () => {
      const id = await createJob('Say hello');
      const answer = await client().get(`/settings/jobs/${id}/live`, '', { 'HX-Request': 'true' });
      expect(answer.status).to.equal(401);
      expect(answer.headers.get('hx-redirect')).to.equal('/settings/login');
    });

    it('says there is nothing to cancel for a finished job', async () => {
      const id = await createJob('Say hello');
      await waitFor(async () => (await statusOf(id)) === 'succeeded', 20_000, 'the job succeeded');
      const { cookie } = await login();
      expect(await text(client().get(`/settings/jobs/${id}/cancel`, cookie)))
        .to.contain('there is nothing to cancel')
        .and.not.to.contain('<form method="post" action="/settings/jobs/');
    });
  });

  it('shows the size of every service table on the health page', async () => {
    const { cookie } = await login();
    const page = await text(client().get('/settings/health', cookie));
    for (const table of [
      'api_keys',
      'jobs',
      'idempotency_keys',
      'action_runs',
      'inbound_requests',
      'trigger_lanes',
      'approvals',
      'schedule_runs',
      'codehost_deliveries',
      'poller_leases',
      'chat_turns',
      'admin_sessions',
      'admin_login_attempts',
      'settings',
      'pgboss.job',
    ]) {
      expect(page, table).to.match(
        new RegExp(
          `<td><code>${table.replace('.', '\\.')}</code></td><td class="number">(—|[\\d,]+)</td><td class="number"><data value="\\d+">[\\d.]+ (B|KiB|MiB)</data></td>`,
        ),
      );
    }
  });

  it('marks the current page in the navigation on every page', async () => {
    const { cookie } = await login();
    for (const [path, label] of [
      ['/settings/keys', 'API keys'],
      ['/settings/triggers', 'Triggers'],
      ['/settings/schedules', 'Schedules'],
      ['/settings/jobs', 'Jobs'],
      ['/settings/messaging', 'Messaging'],
      ['/settings/chat', 'Chat'],
      ['/settings/health', 'Health'],
    ]) {
      const page = await text(client().get(path, cookie));
      expect(page.match(/aria-current="page"/g), path).to.have.length(1);
      expect(page, path).to.contain(`<a href="${path}" aria-current="page">${label}</a>`);
    }
  });
});
