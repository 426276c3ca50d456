import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fakeOpenAi.js';
import { ROOT, startGateway, tempDir, type GatewayProcess } from '../support/gatewayProcess.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOTS = join(ROOT, 'test-output', 'screenshots');
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];

const setPassword = (env: Record<string, string>, password: string): Promise<number | null> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, 'dist', 'cli', 'main.js'), 'admin', 'set-password'], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['pipe', 'ignore', 'ignore'] });
    child.stdin.end(`${password}\n`);
    child.once('exit', resolve);
  });

const body = (browserPage: Page) => browserPage.locator('main');

const newKey = async (): Promise<string> => {
  const { runCli } = await import('../support/gatewayProcess.js');
  return JSON.parse((await runCli(['keys', 'create', '--name', 'browser-api', '--json'], currentEnv)).stdout).key as string;
};
let currentEnv: Record<string, string> = {};

const suite = existsSync(CHROMIUM) ? describe : describe.skip;
const title = existsSync(CHROMIUM) ? 'e2e: admin UI in headless Chromium' : `e2e: admin UI in headless Chromium — pending: no Chromium at ${CHROMIUM} (apt-get install chromium)`;

suite(title, function () {
  this.timeout(90_000);
  let gateway: GatewayProcess;
  let browser: Browser;
  let page: Page;
  let env: Record<string, string>;
  let llm: FakeOpenAi;
  const PASSWORD = 'browser admin password';
  const shot = (name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });

  before(async () => {
    await mkdir(SCREENSHOTS, { recursive: true });
    const dir = await tempDir('browser');
    llm = await startFakeOpenAi();
    env = { DATA_DIR: dir, TRIGGERS_FILE: join(dir, 'none.json'), LLM_PROVIDER: 'custom', LLM_BASE_URL: llm.baseUrl, LLM_MODEL: 'fake-model', LLM_MAX_RETRIES: '0', JOB_AGENT_COMMAND: 'echo "agent did it"' };
    gateway = await startGateway(env);
    currentEnv = env;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
    page = await (await browser.newContext()).newPage();
  });
  after(async () => {
    await browser?.close();
    await gateway?.stop();
    await llm?.close();
  });

  it('shows the closed page before the first-run password is set, then the login page', async () => {
    await page.goto(`${gateway.url}/settings`);
    await expect(await body(page).innerText()).to.contain('admin set-password');
    await shot('01-closed');
    expect(await setPassword(env, PASSWORD)).to.equal(0);
    await page.goto(`${gateway.url}/settings`);
    expect(new URL(page.url()).pathname).to.equal('/settings/login');
    await shot('02-login');
  });

  it('refuses a wrong password, then logs in with the keyboard only', async () => {
    await page.getByLabel('Admin password').fill('not the password');
    await page.keyboard.press('Enter');
    await page.waitForLoadState();
    expect(await page.getByRole('alert').innerText()).to.contain('Wrong password');
    await shot('03-login-refused');
    await page.getByLabel('Admin password').fill(PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForURL('**/settings/keys');
    expect(await page.getByRole('heading', { level: 1 }).innerText()).to.equal('API keys');
  });

  it('creates a key shown once, which works against /api/create-job and stops working once revoked', async () => {
    await page.getByLabel('Name').fill('browser key');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.locator('#new-key').innerText()).trim();
    expect(key).to.match(/^agw_[A-Za-z0-9_-]{43}$/);
    // The copy button appears once the UI's script (same origin, no inline code) has run.
    await page.getByRole('button', { name: 'Copy' }).waitFor({ state: 'visible', timeout: 5000 });
    await shot('04-key-created');
    const call = () =>
      fetch(`${gateway.url}/api/create-job`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: '{}' });
    expect(await (await call()).json()).to.deep.equal({ error: 'Missing job field' });
    await page.goto(`${gateway.url}/settings/keys`);
    expect(await body(page).innerText()).to.contain('browser key').and.not.to.contain(key);
    await page.getByRole('link', { name: /Revoke browser key/ }).click();
    await shot('05-revoke-confirm');
    await page.getByRole('button', { name: 'Revoke' }).click();
    await page.waitForURL('**/settings/keys');
    await shot('06-keys');
    expect((await call()).status).to.equal(401);
  });

  it('refuses a form post without the CSRF token even with a valid session cookie', async () => {
    const response = await page.request.post(`${gateway.url}/settings/keys`, { form: { name: 'forged' }, maxRedirects: 0 });
    expect(response.status()).to.equal(403);
    await page.goto(`${gateway.url}/settings/keys`);
    expect(await body(page).innerText()).not.to.contain('forged');
  });

  it('shows the triggers, jobs, messaging and health pages', async () => {
    const apiKey = await newKey();
    const created = await fetch(`${gateway.url}/api/create-job`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ job: 'Tidy the README' }),
    });
    const { job_id: jobId } = (await created.json()) as { job_id: string };
    for (const [name, heading] of [['triggers', 'Triggers'], ['messaging', 'Messaging'], ['health', 'Health']] as const) {
      await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: heading }).click();
      expect(await page.getByRole('heading', { level: 1 }).innerText()).to.equal(heading);
      await shot(`08-${name}`);
    }
    expect(await body(page).innerText()).to.contain('pglite').and.to.contain('local');
    await page.goto(`${gateway.url}/settings/jobs`);
    expect(await body(page).innerText()).to.contain('Tidy the README');
    await shot('09-jobs');
    for (let i = 0; i < 60; i++) {
      const status = (await (await fetch(`${gateway.url}/api/jobs/status?job_id=${jobId}`, { headers: { 'x-api-key': apiKey } })).json()) as { status: string };
      if (status.status === 'succeeded') break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    await page.goto(`${gateway.url}/settings/jobs/${jobId}`);
    expect(await body(page).innerText()).to.contain('succeeded').and.to.contain('agent did it');
    await shot('10-job');
  });

  it('runs a web chat round trip with the agent, against a loopback fake LLM', async () => {
    llm.script([{ text: 'Hello from the **agent**.' }, { text: 'Second answer.' }]);
    await page.goto(`${gateway.url}/settings/chat`);
    await page.getByLabel('Message').fill('Hi there');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.waitForURL('**/settings/chat');
    const conversation = page.getByRole('list', { name: 'Conversation' });
    expect(await conversation.innerText()).to.contain('You: Hi there').and.to.contain('Agent: Hello from the **agent**.');
    await page.getByLabel('Message').fill('And again');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.waitForURL('**/settings/chat');
    expect(await conversation.innerText()).to.contain('Second answer.');
    expect(JSON.stringify(llm.requests.at(-1)!.messages)).to.contain('Hi there').and.to.contain('Web chat');
    await shot('11-chat');
  });

  it('leaves every page unreachable after logout', async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL('**/settings/login');
    for (const path of ['/settings', '/settings/keys', '/settings/triggers', '/settings/jobs', '/settings/messaging', '/settings/health', '/settings/chat', '/settings/static/ui.js']) {
      await page.goto(`${gateway.url}${path}`);
      expect(new URL(page.url()).pathname, path).to.equal('/settings/login');
    }
    await shot('07-logged-out');
  });
});
