import { expect } from 'chai';
import { createHmac, randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { adminClient, setAdminPassword } from '../support/admin-http.js';
import { runCli, startGateway, tempDir, type GatewayProcess } from '../support/gateway-process.js';
import { migratedDataDir } from '../support/data-dirs.js';
import { send, waitFor } from '../support/http.js';

/*
 * End-to-end: trigger filters (`when`, issue 17.3) on the built server. A GitHub-like push
 * delivery, signed like GitHub signs it, fires the trigger filtered on `push` to main only when
 * it is one; the response lists only the triggers that fired.
 */

const SECRET = 'e2e-trigger-filter-secret';
const ADMIN_PASSWORD = 'correct horse battery staple filters';
const sign = (raw: string): string => `sha256=${createHmac('sha256', SECRET).update(raw).digest('hex')}`;

describe('e2e: trigger filters (when) on the built server', function () {
  this.timeout(60_000);
  let dir: string;
  let gateway: GatewayProcess | undefined;

  const lines = async (file: string): Promise<string[]> => {
    try {
      return (await readFile(join(dir, file), 'utf8')).split('\n').filter(Boolean);
    } catch {
      return [];
    }
  };

  const push = (ref: string, after: string, event = 'push') => {
    // As GitHub sends them: a push's commits, a created branch's type (the event must match its payload).
    const shape = event === 'create' ? { ref_type: 'branch', master_branch: 'main', pusher_type: 'user' } : { commits: [] };
    const raw = JSON.stringify({ ref, after, ...shape, repository: { full_name: 'acme/app' } });
    return send(`${gateway!.url}/api/codehost/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-GitHub-Event': event, 'X-GitHub-Delivery': randomUUID(), 'X-Hub-Signature-256': sign(raw) },
      body: raw,
    });
  };

  before(async () => {
    dir = await tempDir('e2e-trigger-filters');
    const triggersFile = join(dir, 'TRIGGERS.json');
    await writeFile(
      triggersFile,
      JSON.stringify([
        {
          name: 'deploy-main',
          watch_path: '/codehost/webhook',
          enabled: true,
          when: { 'body.ref': { equals: 'refs/heads/main' }, 'headers.x-github-event': { in: ['push'] } },
          actions: [{ type: 'command', command: 'echo {{body.after}} >> deploy.txt' }],
        },
        {
          name: 'every-delivery',
          watch_path: '/codehost/webhook',
          enabled: true,
          actions: [{ type: 'command', command: 'echo {{body.after}} >> every.txt' }],
        },
      ]),
    );
    const env = { DATA_DIR: await migratedDataDir('trigger-filters-data'), TRIGGERS_FILE: triggersFile, TRIGGERS_DIR: dir, CODEHOST_WEBHOOK_SECRET: SECRET };
    gateway = await startGateway(env);
    expect(await setAdminPassword(env, ADMIN_PASSWORD)).to.equal(0);
  });

  after(async () => {
    await gateway?.stop();
  });

  it('fires the filtered trigger for a push to main only; a push to another branch or another event fires only the unfiltered one', async () => {
    const feature = await push('refs/heads/feature', 'c1');
    expect(feature.status).to.equal(200);
    expect(feature.body).to.deep.equal({ ok: true, triggers: ['every-delivery'] });

    const otherEvent = await push('refs/heads/main', 'c2', 'create');
    expect(otherEvent.body).to.deep.equal({ ok: true, triggers: ['every-delivery'] });

    const main = await push('refs/heads/main', 'c3');
    expect(main.status).to.equal(200);
    expect(main.body).to.deep.equal({ ok: true, triggers: ['deploy-main', 'every-delivery'] });

    await waitFor(async () => (await lines('every.txt')).length === 3 && (await lines('deploy.txt')).length === 1, 20_000, 'the three deliveries to run');
    expect(await lines('deploy.txt')).to.deep.equal(['c3']);
    expect((await lines('every.txt')).sort()).to.deep.equal(['c1', 'c2', 'c3']);
  });

  it("shows each trigger's filters on the admin UI's triggers page", async () => {
    const admin = adminClient(gateway!.url);
    const { cookie } = await admin.login(ADMIN_PASSWORD);
    const page = await (await admin.get('/settings/triggers', cookie)).text();
    expect(page).to.contain('when <code>body.ref equals &quot;refs/heads/main&quot;</code>');
    expect(page).to.contain('when <code>headers.x-github-event in [&quot;push&quot;]</code>');
  });

  it('`triggers check` refuses an invalid or catastrophic regex and an unknown test, naming the file, trigger and field', async () => {
    const bad = join(dir, 'bad-filters.json');
    const action = [{ type: 'command', command: 'true' }];
    await writeFile(
      bad,
      JSON.stringify([
        { name: 'broken', watch_path: '/webhook', enabled: true, when: { 'body.ref': { regex: '(' } }, actions: action },
        { name: 'slow', watch_path: '/webhook', enabled: true, when: { 'body.title': { regex: '(a+)+$' } }, actions: action },
        { name: 'typo', watch_path: '/webhook', enabled: true, when: { 'headers.x-github-event': { equal: 'push' } }, actions: action },
      ]),
    );
    const checked = await runCli(['triggers', 'check', '--file', bad], { DATA_DIR: join(dir, 'data-check'), TRIGGERS_DIR: dir });
    expect(checked.code, checked.stderr).to.equal(1);
    expect(checked.stderr).to.contain(`${bad}: trigger #0 "broken": when.body.ref.regex: not a valid regular expression`);
    expect(checked.stderr).to.contain(`${bad}: trigger #1 "slow": when.body.title.regex: a quantifier on a group that holds a quantifier`);
    expect(checked.stderr).to.contain(`${bad}: trigger #2 "typo": when.headers.x-github-event.equal: unknown test; one of equals, in, prefix, regex`);
  });

  it('`triggers check` warns of a chat-endpoint trigger that fires for every chat, and passes the file', async () => {
    const file = join(dir, 'chat-triggers.json');
    const action = [{ type: 'command', command: 'true' }];
    await writeFile(
      file,
      JSON.stringify([
        { name: 'open-to-all', watch_path: '/messaging/telegram/webhook', enabled: true, actions: action },
        { name: 'ops-only', watch_path: '/messaging/telegram/webhook', enabled: true, when: { 'body.message.chat.id': { in: [42] } }, actions: action },
        { name: 'open-slack', watch_path: '/messaging/slack/webhook', enabled: true, actions: action },
        { name: 'ops-slack', watch_path: '/messaging/slack/webhook', enabled: true, when: { 'body.event.channel': { in: ['C0OPS'] } }, actions: action },
      ]),
    );
    const checked = await runCli(['triggers', 'check', '--file', file], { DATA_DIR: join(dir, 'data-check-chat'), TRIGGERS_DIR: dir });
    expect(checked.code, checked.stderr).to.equal(0);
    expect(checked.stdout).to.contain('4 triggers valid');
    expect(checked.stderr).to.contain('warning: trigger "open-to-all" watches the chat endpoint /messaging/telegram/webhook');
    expect(checked.stderr).not.to.contain('ops-only');
    // Each channel's warning suggests its own chat field: Telegram's never fires on Slack.
    const slack = checked.stderr.split('\n').find((line) => line.includes('"open-slack"'));
    expect(slack).to.contain('"when": {"body.event.channel": {"in": [<your chat ids>]}}').and.not.to.contain('chat.id');
    expect(checked.stderr).not.to.contain('ops-slack');
  });
});
