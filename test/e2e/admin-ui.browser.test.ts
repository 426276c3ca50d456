import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { setAdminPassword } from '../support/admin-http.js';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-open-ai.js';
import { ROOT, startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { migratedDataDir } from '../support/data-dirs.js';
import { createKey, send, waitFor } from '../support/http.js';

/** The page's document, as functions run in the page by `evaluate` see it (the tests are type-checked without the DOM's types). */
declare const document: { readonly activeElement: { readonly id: string } | null };

/*
 * The admin UI in headless Chromium, at phone width (390 px): every page is checked for an
 * empty console (no error, no warning, nothing), for a layout without horizontal overflow, and
 * photographed (test-output/screenshots/). Forms are submitted as a user does, and reloading the
 * page a form led to repeats nothing (but for the answer to a new key's form, which shows the key
 * itself and says what a reload would do). Each test has its own browser context (its own cookies);
 * the tests that are not about logging in or out start signed in with the cookies of one login
 * typed in the file's first such test, which spares each a login's page loads.
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOTS = join(ROOT, 'test-output', 'screenshots');
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  // Names for plain-HTTP origins that are not localhost (no fetch metadata is sent to them).
  '--host-resolver-rules=MAP gateway.test 127.0.0.1, MAP attacker.test 127.0.0.1',
];
const WIDTH = 390;
const PASSWORD = 'browser admin password';

/**
 * The agent: a job asking to wait runs until cancelled; one asking for a signal runs until the
 * test creates `go-<job id>` in AGENT_SIGNAL_DIR.
 */
const AGENT = [
  'case "$JOB_PROMPT" in',
  '*"wait for cancel"*) echo "step one done"; sleep 30;;',
  '*"wait for a signal"*) echo working; while [ ! -e "$AGENT_SIGNAL_DIR/go-$JOB_ID" ]; do sleep 0.1; done; echo "slow job done";;',
  '*) echo "agent did it";;',
  'esac',
].join('\n');
const TRIGGERS = [
  {
    name: 'deploy',
    watch_path: '/webhook',
    enabled: true,
    // Only the triggers test's requests: the approvals test's would otherwise add failed runs of its own.
    when: { 'body.branch': { prefix: 'browser-' } },
    actions: [{ type: 'command', command: 'echo "deploying {{body.branch}}"; echo "fatal: no such branch" >&2; exit 3' }],
  },
  {
    name: 'guarded',
    watch_path: '/webhook',
    enabled: true,
    when: { 'body.approve': { equals: true } },
    actions: [{ type: 'command', command: 'echo "released {{body.branch}}"', approval: true }],
  },
];

/** A browser tab of its own context, with everything its pages print to the console. */
interface Tab {
  readonly page: Page;
  readonly context: BrowserContext;
  readonly console: string[];
}

const suite = existsSync(CHROMIUM) ? describe : describe.skip;
const title = existsSync(CHROMIUM)
  ? 'e2e: admin UI in headless Chromium'
  : `e2e: admin UI in headless Chromium — pending: no Chromium at ${CHROMIUM} (apt-get install chromium)`;

suite(title, function () {
  this.timeout(90_000);
  let browser: Browser;
  let gateway: GatewayProcess;
  let llm: FakeOpenAi;
  let env: Record<string, string>;
  let apiKey: string;
  const tabs: Tab[] = [];

  before(async () => {
    await mkdir(SCREENSHOTS, { recursive: true });
    const dir = await migratedDataDir('browser');
    llm = await startFakeOpenAi();
    await writeFile(join(dir, 'triggers.json'), JSON.stringify(TRIGGERS));
    env = {
      DATA_DIR: dir,
      TRIGGERS_FILE: join(dir, 'triggers.json'),
      TRIGGERS_DIR: dir,
      LLM_PROVIDER: 'custom',
      LLM_BASE_URL: llm.baseUrl,
      LLM_MODEL: 'fake-model',
      LLM_MAX_RETRIES: '0',
      JOB_AGENT_COMMAND: AGENT,
      JOB_CONCURRENCY: '4',
      AGENT_SIGNAL_DIR: dir,
      // The admin UI is also reached as http://gateway.test (plain HTTP under a name); the only
      // names it answers under besides addresses and localhost are those it is told (docs/admin-ui.md).
      ADMIN_HOSTS: 'gateway.test',
    };
    gateway = await startGateway(env);
    expect(await setAdminPassword(env, PASSWORD)).to.equal(0);
    apiKey = await createKey(env, 'browser-api');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
  });
  afterEach(async () => {
    for (const tab of tabs.splice(0)) await tab.context.close();
  });
  after(async () => {
    await browser?.close();
    await gateway?.stop();
    await llm?.close();
  });

  /** A new tab at phone width with its own cookies; whatever its pages print to the console is kept. */
  const openTab = async (storageState?: Awaited<ReturnType<BrowserContext['storageState']>>): Promise<Tab> => {
    const context = await browser.newContext({ viewport: { width: WIDTH, height: 844 }, storageState });
    const page = await context.newPage();
    const console: string[] = [];
    page.on('console', (message) => console.push(`${message.type()}: ${message.text()} (${page.url()})`));
    page.on('pageerror', (error) => console.push(`page error: ${error.message} (${page.url()})`));
    const tab = { page, context, console };
    tabs.push(tab);
    return tab;
  };

  const url = (path: string): string => `${gateway.url}${path}`;

  /**
   * Types `password` on the login page once the page's autofocus has put the cursor in the field,
   * as a user sees it: typing before that (focusing the field first) makes Chromium log that it
   * skipped the autofocus, and whether it does depends on the machine's speed.
   */
  const enterPassword = async (tab: Tab, password: string): Promise<void> => {
    // Read from outside the page: waitForFunction polls inside it with eval, which the admin
    // UI's Content Security Policy refuses whenever the first look does not already pass.
    await waitFor(async () => (await tab.page.evaluate(() => document.activeElement?.id)) === 'password', 10_000, 'the autofocus on the password field');
    await tab.page.getByLabel('Admin password').fill(password);
  };

  /** The cookies of the first login `signedIn` typed (a session of its own for `loggedIn`). */
  let session: Awaited<ReturnType<BrowserContext['storageState']>> | undefined;

  /** A tab signed in with the keyboard, on the API keys page, in a session of its own. */
  const loggedIn = async (): Promise<Tab> => {
    const tab = await openTab();
    await tab.page.goto(url('/settings/login'));
    await enterPassword(tab, PASSWORD);
    await tab.page.keyboard.press('Enter');
    await tab.page.waitForURL('**/settings/keys');
    return tab;
  };

  /** A tab on the API keys page, signed in: with the cookies of the file's first login (made here if none was yet). */
  const signedIn = async (): Promise<Tab> => {
    if (session === undefined) {
      const tab = await loggedIn();
      session = await tab.context.storageState();
      return tab;
    }
    const tab = await openTab(session);
    await tab.page.goto(url('/settings/keys'));
    expect(new URL(tab.page.url()).pathname, 'signed in with the stored session').to.equal('/settings/keys');
    return tab;
  };

  /**
   * The page as shown now: nothing on the console since the last check, no horizontal overflow at 390 px;
   * photographed as `name`. A page whose status is meant to be an error (`documentStatus`: the
   * closed UI's 503) may have the one line by which Chromium notes that status, nothing else.
   */
  const check = async (tab: Tab, name: string, documentStatus?: number): Promise<void> => {
    await tab.page.waitForLoadState('load');
    const noted = (line: string) =>
      documentStatus !== undefined &&
      line.startsWith(`error: Failed to load resource: the server responded with a status of ${documentStatus} `) &&
      line.endsWith(`(${tab.page.url()})`);
    expect(
      tab.console.filter((line) => !noted(line)),
      `console of ${name}`,
    ).to.deep.equal([]);
    tab.console.length = 0;
    const width = Number(await tab.page.evaluate('document.documentElement.scrollWidth'));
    expect(width, `page width of ${name}`).to.be.at.most(WIDTH);
    await tab.page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  };

  const main = (tab: Tab) => tab.page.locator('main');
  const heading = (tab: Tab) => tab.page.getByRole('heading', { level: 1 }).innerText();
  const navigate = async (tab: Tab, label: string): Promise<void> => {
    await tab.page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: label, exact: true }).click();
    await tab.page.waitForLoadState('load');
  };
  const current = (tab: Tab) => tab.page.locator('nav a[aria-current="page"]').innerText();

  describe('before the first password', () => {
    let closed: GatewayProcess | undefined;
    let closedEnv: Record<string, string>;
    before(async () => {
      const dir = await migratedDataDir('browser-closed');
      closedEnv = { DATA_DIR: dir, TRIGGERS_FILE: join(dir, 'none.json') };
      closed = await startGateway(closedEnv);
    });
    after(() => closed?.stop());

    it('shows the closed page, then, once a password is set, the login page', async () => {
      const tab = await openTab();
      await tab.page.goto(`${closed!.url}/settings`);
      expect(await main(tab).innerText()).to.contain('admin set-password');
      await check(tab, '01-closed', 503);
      expect(await setAdminPassword(closedEnv, PASSWORD)).to.equal(0);
      await tab.page.goto(`${closed!.url}/settings`);
      expect(new URL(tab.page.url()).pathname).to.equal('/settings/login');
      await check(tab, '02-login');
    });
  });

  it('refuses a wrong password, then logs in with the keyboard only, on the API keys page marked as current', async () => {
    const tab = await openTab();
    await tab.page.goto(url('/settings/login'));
    await enterPassword(tab, 'not the password');
    await tab.page.keyboard.press('Enter');
    await tab.page.waitForLoadState('load');
    expect(await tab.page.getByRole('alert').innerText()).to.contain('Wrong password');
    await check(tab, '03-login-refused');
    // Reloading the refused login's page does not send the password again: the reason is gone.
    await tab.page.reload();
    expect(await tab.page.getByRole('alert').count()).to.equal(0);
    await enterPassword(tab, PASSWORD);
    await tab.page.keyboard.press('Enter');
    await tab.page.waitForURL('**/settings/keys');
    expect(await heading(tab)).to.equal('API keys');
    expect(await current(tab)).to.equal('API keys');
    await check(tab, '04-keys');
  });

  it("refuses a login posted by a page of another site over plain HTTP (no Sec-Fetch-Site, Origin: null) before checking or counting it; the login page's own form logs in", async () => {
    // The UI served over plain HTTP under a name: Chromium sends no Sec-Fetch-Site there.
    const gatewayByName = `http://gateway.test:${gateway.port}`;
    const attacker = createServer((_request, response) => {
      response.setHeader('content-type', 'text/html');
      // Its posts carry `Origin: null`, as the admin pages' own do (their Referrer-Policy is no-referrer).
      response.setHeader('referrer-policy', 'no-referrer');
      response.end(`<!doctype html><title>elsewhere</title><form method="post" action="${gatewayByName}/settings/login" target="sink">
<input name="password" value="not the password"><input name="nonce" value="${'n'.repeat(43)}"></form><iframe name="sink"></iframe>
<script>document.forms[0].submit()</script>`);
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    try {
      const tab = await openTab();
      // The admin had the login page open: the browser holds its nonce cookie.
      await tab.page.goto(`${gatewayByName}/settings/login`);
      const isLogin = (method: string, address: string) => method === 'POST' && address === `${gatewayByName}/settings/login`;
      const posted = tab.page.waitForRequest((request) => isLogin(request.method(), request.url()));
      const answered = tab.page.waitForResponse((response) => isLogin(response.request().method(), response.url()));
      await tab.page.goto(`http://attacker.test:${(attacker.address() as AddressInfo).port}/`);
      const headers = await (await posted).allHeaders();
      expect({ origin: headers.origin, site: headers['sec-fetch-site'] }, 'what the browser says of the page').to.deep.equal({
        origin: 'null',
        site: undefined,
      });
      expect((await answered).status()).to.equal(403);
      await gateway.logLine(
        (line) => line.msg === 'admin login without the nonce of its page refused' && line.by === 'login nonce',
        '"admin login without the nonce of its page refused"',
      );
      // The login page's own form, posted under the same conditions (Origin: null, no Sec-Fetch-Site), logs in.
      await tab.page.goto(`${gatewayByName}/settings/login`);
      await enterPassword(tab, PASSWORD);
      await tab.page.keyboard.press('Enter');
      await tab.page.waitForURL('**/settings/keys');
    } finally {
      attacker.close();
    }
  });

  it('creates a key shown once, with a copy button, by the answer to the form: no cookie holds it, and the keys page lists it without showing it', async () => {
    const tab = await signedIn();
    await tab.page.getByLabel('Name').fill('browser key');
    const [answer] = await Promise.all([
      tab.page.waitForResponse((response) => response.request().method() === 'POST' && new URL(response.url()).pathname === '/settings/keys'),
      tab.page.getByRole('button', { name: 'Create key' }).click(),
    ]);
    expect(answer.status()).to.equal(201);
    expect(answer.headers()['cache-control']).to.equal('no-store');
    const setCookies = (await answer.headersArray()).filter(({ name }) => name.toLowerCase() === 'set-cookie').map(({ value }) => value);
    const key = (await tab.page.locator('#new-key').innerText()).trim();
    expect(key).to.match(/^agw_[A-Za-z0-9_-]{43}$/);
    await tab.page.getByRole('button', { name: 'Copy' }).waitFor({ state: 'visible', timeout: 5000 });
    expect(await main(tab).innerText(), 'what a reload would do without JavaScript').to.contain('reloading this page would send the form again');
    await check(tab, '05-key-created');
    expect(
      setCookies.filter((line) => line.includes(key) || line.startsWith('agw_new_key=')),
      'cookies set by the answer that hold the key',
    ).to.deep.equal([]);
    const created = await send(url('/api/create-job'), { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: '{}' });
    expect(created.body).to.deep.equal({ error: 'Missing job field' });
    expect(await tab.page.getByRole('link', { name: 'Back to the API keys' }).count(), 'the way back without JavaScript').to.equal(1);
    // With JavaScript, the answer took the keys page's place in the history: a reload is a GET of
    // that page (page.reload would send the form again without asking if it were not).
    const requests: string[] = [];
    tab.page.on('request', (request) => requests.push(`${request.method()} ${new URL(request.url()).pathname}`));
    await tab.page.reload();
    await tab.page.locator('#new-key').waitFor({ state: 'detached' });
    expect(requests, 'what the reload sent').to.include('GET /settings/keys').and.not.to.include('POST /settings/keys');
    expect(await main(tab).innerText())
      .to.contain('browser key')
      .and.not.to.contain(key);
    expect(await tab.page.locator('td[data-label="Name"]', { hasText: /^browser key$/ }).count()).to.equal(1);
    await tab.page.reload();
    expect(await tab.page.locator('td[data-label="Name"]', { hasText: /^browser key$/ }).count(), 'reloading the keys page creates nothing').to.equal(1);
    await check(tab, '06-keys-reloaded');
  });

  it('revokes a key after its confirmation page; the key stops working and reloading repeats nothing', async () => {
    const tab = await signedIn();
    await tab.page.getByLabel('Name').fill('to revoke');
    await tab.page.getByRole('button', { name: 'Create key' }).click();
    const key = (await tab.page.locator('#new-key').innerText()).trim();
    await tab.page.getByRole('link', { name: 'Revoke to revoke' }).click();
    expect(await heading(tab)).to.equal('Revoke key');
    expect(await current(tab)).to.equal('API keys');
    await check(tab, '07-revoke-confirm');
    await tab.page.getByRole('button', { name: 'Revoke' }).click();
    await tab.page.waitForURL('**/settings/keys');
    expect(await tab.page.getByRole('status').innerText()).to.contain('Key to revoke revoked');
    await check(tab, '08-key-revoked');
    expect((await fetch(url('/api/jobs/status'), { headers: { 'x-api-key': key } })).status).to.equal(401);
    await tab.page.reload();
    expect(await main(tab).innerText()).not.to.contain('to revoke');
  });

  it('approves a waiting action from the Approvals page and replays a delivery from its page, each form once (Post/Redirect/Get)', async () => {
    const branch = `approve-${Date.now()}`;
    const fired = await send(url('/api/webhook'), {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ branch, approve: true }),
    });
    expect(fired.status).to.equal(200);
    const tab = await signedIn();
    await navigate(tab, 'Approvals');
    expect(await current(tab)).to.equal('Approvals');
    const waiting = await waitFor(
      async () => {
        await tab.page.reload();
        const section = tab.page.locator('section.approval', { hasText: branch });
        return (await section.count()) > 0 ? section : undefined;
      },
      20_000,
      'the waiting action listed',
    );
    expect(await waiting.innerText())
      .to.contain('AGW_ARG_1')
      .and.to.contain(branch);
    await check(tab, '13-approvals');
    await waiting.getByRole('button', { name: 'Approve' }).click();
    await tab.page.waitForURL('**/settings/approvals');
    expect(await main(tab).innerText()).to.contain('Approved: guarded, action 0 runs now.');
    await tab.page.reload();
    expect(await main(tab).innerText(), 'a reload repeats nothing').not.to.contain('Approved: guarded');
    await check(tab, '14-approved');

    await navigate(tab, 'Deliveries');
    expect(await current(tab)).to.equal('Deliveries');
    await check(tab, '15-deliveries');
    await tab.page.locator('td[data-label="Received"] a').first().click();
    await tab.page.waitForURL('**/settings/deliveries/**');
    expect(await main(tab).innerText()).to.contain(branch);
    await check(tab, '16-delivery');
    await tab.page.getByRole('button', { name: 'Replay' }).click();
    await tab.page.waitForURL('**/settings/deliveries/**');
    expect(await main(tab).innerText())
      .to.contain('Replayed: fired')
      .and.to.contain('Replay of');
    await tab.page.reload();
    expect(await main(tab).innerText(), 'a reload repeats nothing').not.to.contain('Replayed: fired');
    await check(tab, '17-replayed');
  });

  it('shows the Schedules page (none configured): the current page marked, console empty, layout at 390 px', async () => {
    const tab = await signedIn();
    await navigate(tab, 'Schedules');
    expect(await current(tab)).to.equal('Schedules');
    expect(await heading(tab)).to.equal('Schedules');
    await check(tab, '18-schedules');
  });

  it('refuses a form post without the CSRF token even with a valid session cookie', async () => {
    const tab = await signedIn();
    const response = await tab.page.request.post(url('/settings/keys'), { form: { name: 'forged' }, maxRedirects: 0 });
    expect(response.status()).to.equal(403);
    await tab.page.goto(url('/settings/keys'));
    expect(await main(tab).innerText()).not.to.contain('forged');
  });

  it("shows the triggers and a failed run's page: its command, the value each token got, the exit code and the output", async () => {
    const branch = `browser-${Date.now()}`;
    const fired = await send(url('/api/webhook'), {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ branch }),
    });
    expect(fired.status).to.equal(200);
    const tab = await signedIn();
    await navigate(tab, 'Triggers');
    expect(await current(tab)).to.equal('Triggers');
    const runLink = await waitFor(
      async () => {
        await tab.page.reload();
        const links = tab.page.locator('td[data-label="Status"] a', { hasText: 'failed' });
        return (await links.count()) > 0 ? links : undefined;
      },
      20_000,
      'a failed run listed',
    );
    await check(tab, '09-triggers');
    // The newest run is first; its page is this branch's.
    await runLink.first().click();
    await tab.page.waitForURL('**/settings/runs/**');
    const run = await main(tab).innerText();
    expect(run).to.contain('echo "deploying {{body.branch}}"').and.to.contain('AGW_ARG_1').and.to.contain(branch);
    expect(run).to.contain(`deploying ${branch}\nfatal: no such branch`);
    expect(await tab.page.locator('dt', { hasText: 'Exit code' }).locator('xpath=following-sibling::dd[1]').innerText()).to.equal('3');
    await check(tab, '10-run');
  });

  it("refreshes a running job's page by itself until the job has finished, then stops", async () => {
    const created = await send<{ job_id: string }>(url('/api/create-job'), {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ job: 'A job that will wait for a signal' }),
    });
    const id = created.body.job_id;
    const tab = await signedIn();
    await navigate(tab, 'Jobs');
    expect(await main(tab).innerText()).to.contain('A job that will wait for a signal');
    await check(tab, '11-jobs');
    await tab.page.goto(url(`/settings/jobs/${id}`));
    expect(await current(tab)).to.equal('Jobs');
    expect(await tab.page.locator('#job-live').getAttribute('hx-get'), 'refreshing while the job is unfinished').to.equal(`/settings/jobs/${id}/live`);
    await check(tab, '12-job-running');
    let navigations = 0;
    tab.page.on('framenavigated', () => navigations++);
    await writeFile(join(env.AGENT_SIGNAL_DIR, `go-${id}`), '');
    await tab.page.locator('#job-live .badge-succeeded').waitFor({ timeout: 30_000 });
    expect(navigations, 'the page was not reloaded').to.equal(0);
    expect(await tab.page.locator('#job-live').innerText()).to.contain('slow job done');
    expect(await tab.page.locator('#job-live').getAttribute('hx-get'), 'no more refreshing').to.equal(null);
    await check(tab, '13-job-finished-live');
  });

  it('cancels a job after confirming it, and keeps the output its agent wrote until then', async () => {
    const created = await send<{ job_id: string }>(url('/api/create-job'), {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ job: 'Please wait for cancel' }),
    });
    const id = created.body.job_id;
    await waitFor(
      async () => (await send<{ status: string }>(url(`/api/jobs/status?job_id=${id}`), { headers: { 'x-api-key': apiKey } })).body.status === 'running',
      20_000,
      'the job running',
    );
    const tab = await signedIn();
    await tab.page.goto(url(`/settings/jobs/${id}`));
    await check(tab, '14-job-running-cancellable');
    await tab.page.getByRole('link', { name: 'Cancel job…' }).click();
    expect(await heading(tab)).to.equal('Cancel job');
    await check(tab, '15-cancel-confirm');
    await tab.page.getByRole('button', { name: 'Cancel job' }).click();
    await tab.page.waitForURL(`**/settings/jobs/${id}`);
    expect(await tab.page.getByRole('status').innerText()).to.contain('cancelled');
    await waitFor(
      async () => {
        await tab.page.reload();
        return (await tab.page.locator('#job-live pre').innerText()).includes('step one done');
      },
      20_000,
      "the cancelled job's log on its page",
    );
    expect(await tab.page.locator('#job-live .badge-cancelled').count()).to.equal(1);
    await check(tab, '16-job-cancelled');
  });

  it('runs a web chat round trip; reloading the page does not send the message again', async () => {
    llm.script([{ text: 'Hello from the **agent**.' }]);
    const asked = llm.requests.length;
    const tab = await signedIn();
    await navigate(tab, 'Chat');
    await tab.page.getByLabel('Message').fill('Hi there');
    await tab.page.getByRole('button', { name: 'Send' }).click();
    await tab.page.waitForURL('**/settings/chat');
    const conversation = tab.page.getByRole('list', { name: 'Conversation' });
    expect(await conversation.innerText())
      .to.contain('You: Hi there')
      .and.to.contain('Agent: Hello from the **agent**.');
    await check(tab, '17-chat');
    await tab.page.reload();
    expect(await conversation.locator('li').count()).to.equal(2);
    expect(llm.requests.length).to.equal(asked + 1);
    expect(JSON.stringify(llm.requests.at(-1)!.messages))
      .to.contain('Hi there')
      .and.to.contain('Web chat');
  });

  it('shows what to check when the AI provider refuses the chat, once', async () => {
    llm.script([
      { status: 401, body: { error: { message: 'Incorrect API key provided: sk-browser', type: 'invalid_request_error', code: 'invalid_api_key' } } },
    ]);
    const tab = await signedIn();
    await navigate(tab, 'Chat');
    await tab.page.getByLabel('Message').fill('Are you there?');
    await tab.page.getByRole('button', { name: 'Send' }).click();
    await tab.page.waitForURL('**/settings/chat');
    const alert = await tab.page.getByRole('alert').innerText();
    expect(alert).to.contain('refused the request (HTTP 401)').and.to.contain('Check the API key').and.not.to.contain('sk-browser');
    await check(tab, '18-chat-refused');
    await tab.page.reload();
    expect(await tab.page.getByRole('alert').count()).to.equal(0);
  });

  it('shows the messaging and health pages, health with the size of each table', async () => {
    const tab = await signedIn();
    await navigate(tab, 'Messaging');
    expect(await heading(tab)).to.equal('Messaging');
    expect(await current(tab)).to.equal('Messaging');
    await check(tab, '19-messaging');
    await navigate(tab, 'Health');
    expect(await current(tab)).to.equal('Health');
    const health = await main(tab).innerText();
    expect(health).to.contain('pglite').and.to.contain('local').and.to.contain('api_keys').and.to.contain('pgboss.job');
    await check(tab, '20-health');
  });

  it('leaves every page unreachable after logout', async () => {
    const tab = await loggedIn(); // its own session: the logout ends it
    await tab.page.getByRole('button', { name: 'Log out' }).click();
    await tab.page.waitForURL('**/settings/login');
    for (const path of [
      '/settings',
      '/settings/keys',
      '/settings/triggers',
      '/settings/deliveries',
      '/settings/approvals',
      '/settings/schedules',
      '/settings/jobs',
      '/settings/messaging',
      '/settings/health',
      '/settings/chat',
      '/settings/static/ui.js',
      '/settings/static/htmx.min.js',
    ]) {
      await tab.page.goto(url(path));
      expect(new URL(tab.page.url()).pathname, path).to.equal('/settings/login');
    }
    await check(tab, '21-logged-out');
  });
});
