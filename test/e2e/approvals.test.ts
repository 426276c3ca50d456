import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { adminClient, cookieFrom, setAdminPassword } from '../support/admin-http.js';
import { startGateway, tempDir, type GatewayProcess } from '../support/gateway-process.js';
import { migratedDataDir } from '../support/data-dirs.js';
import { createKey, queuesDrained, waitFor, runningServerAdmin } from '../support/http.js';

/*
 * Approvals on the built server: a trigger whose action has `approval: true` stops before it; the
 * admin UI shows the action as it would run and approves or denies it. The action appends the
 * request's `id` to approved.txt: what a user sees run.
 */

const PASSWORD = 'a long admin password';

interface Running {
  readonly gateway: GatewayProcess;
  readonly dir: string;
  readonly env: Record<string, string>;
  readonly key: string;
}

const start = async (extra: Record<string, string> = {}): Promise<Running> => {
  const dir = await tempDir('approvals');
  await writeFile(
    join(dir, 'TRIGGERS.json'),
    JSON.stringify([
      {
        name: 'guarded',
        watch_path: '/webhook',
        enabled: true,
        actions: [{ type: 'command', command: `printf '%s\\n' {{body.id}} >> approved.txt`, approval: true }],
      },
    ]),
  );
  const env = { DATA_DIR: await migratedDataDir('approvals-data'), TRIGGERS_FILE: join(dir, 'TRIGGERS.json'), TRIGGERS_DIR: dir, ...extra };
  const gateway = await startGateway(env);
  const key = await createKey(env);
  expect(await setAdminPassword(env, PASSWORD)).to.equal(0);
  return { gateway, dir, env, key };
};

const lines = async (dir: string): Promise<string[]> => (await readFile(join(dir, 'approved.txt'), 'utf8').catch(() => '')).split('\n').filter(Boolean);

/** Posts a webhook carrying `id` to the guarded trigger. */
const post = async (running: Running, id: string): Promise<void> => {
  const response = await fetch(`${running.gateway.url}/api/webhook`, {
    method: 'POST',
    headers: { 'x-api-key': running.key, 'content-type': 'application/json' },
    body: JSON.stringify({ id }),
  });
  expect(response.status).to.equal(200);
};

/** Posts a webhook carrying `id` and waits until its approval is listed; returns the approval's id. */
const askFor = async (running: Running, cookie: string, id: string): Promise<string> => {
  await post(running, id);
  const admin = adminClient(running.gateway.url);
  return waitFor(
    async () => {
      const page = await (await admin.get('/settings/approvals', cookie)).text();
      const section = page.split('<section class="approval"').find((part) => part.includes(`AGW_ARG_1=&quot;${id}&quot;`));
      return section === undefined ? undefined : /action="\/settings\/approvals\/([0-9a-f-]{36})\/approve"/.exec(section)?.[1];
    },
    20_000,
    `the approval for ${id}`,
  );
};

/** The record of the guarded action as the server's admin socket (what `deliveries show` asks) reports it, for the request carrying `id`. */
const actionRecord = async (running: Running, id: string): Promise<{ status: string; detail: { approvalId?: string } } | undefined> => {
  const admin = await runningServerAdmin(running.env);
  expect(admin, 'the server answers on its admin socket').to.not.equal(undefined);
  const listed = (await admin!.deliveries('')) as unknown as Array<{ id: string }>;
  for (const row of listed) {
    const shown = (await admin!.delivery(row.id)) as unknown as {
      request: { request: string };
      runs: Array<{ actions: Array<{ status: string; detail: { approvalId?: string } }> }>;
    };
    if ((JSON.parse(shown.request.request) as { body: { id?: string } }).body.id === id) return shown.runs[0]?.actions[0];
  }
  return undefined;
};

/** The status of the guarded action for the request carrying `id` (see actionRecord). */
const actionStatus = async (running: Running, id: string): Promise<string | undefined> => (await actionRecord(running, id))?.status;

describe('e2e: approvals in the admin UI', function () {
  this.timeout(180_000);
  let running: Running | undefined;

  before(async () => {
    running = await start();
  });
  after(() => running?.gateway.stop());

  it('shows a waiting action as it would run; approved, it runs once; a second decision is refused', async () => {
    const admin = adminClient(running!.gateway.url);
    const { cookie, csrf } = await admin.login(PASSWORD);
    const value = `ok-${randomUUID()}`;
    const approval = await askFor(running!, cookie, value);
    expect(await actionStatus(running!, value)).to.equal('awaiting_approval');
    expect(await lines(running!.dir)).to.not.include(value);

    const approved = await admin.post(`/settings/approvals/${approval}/approve`, { csrf }, cookie);
    expect(approved.status).to.equal(303);
    const page = await (await admin.get('/settings/approvals', `${cookie}; ${cookieFrom(approved, 'agw_flash')}`)).text();
    expect(page).to.contain('Approved: guarded, action 0 runs now.');
    await waitFor(async () => (await lines(running!.dir)).includes(value), 20_000, 'the approved command');
    await waitFor(async () => (await actionStatus(running!, value)) === 'succeeded', 20_000, 'its record');
    expect((await lines(running!.dir)).filter((line) => line === value)).to.have.length(1);

    const again = await admin.post(`/settings/approvals/${approval}/deny`, { csrf }, cookie);
    const refused = await (await admin.get('/settings/approvals', `${cookie}; ${cookieFrom(again, 'agw_flash')}`)).text();
    expect(refused).to.contain('This approval was approved already by admin UI');
  });

  it('denied: the action never runs and its record says who denied it; a forged form changes nothing', async () => {
    const admin = adminClient(running!.gateway.url);
    const { cookie, csrf } = await admin.login(PASSWORD);
    const value = `no-${randomUUID()}`;
    const approval = await askFor(running!, cookie, value);
    expect((await admin.post(`/settings/approvals/${approval}/approve`, { csrf: 'forged' }, cookie)).status).to.equal(403);
    expect((await admin.post(`/settings/approvals/${approval}/deny`, { csrf }, cookie)).status).to.equal(303);
    expect(await actionStatus(running!, value)).to.equal('denied');
    // A denial queues nothing; had it queued the action, it would have run once the queues are empty.
    await queuesDrained(running!.gateway.url);
    expect(await lines(running!.dir)).to.not.include(value);
    const page = await (await admin.get('/settings/approvals', cookie)).text();
    expect(page).to.contain('badge-denied');
  });
});

describe('e2e: an approval that expires', function () {
  this.timeout(180_000);
  let running: Running | undefined;

  before(async () => {
    running = await start({ APPROVAL_TIMEOUT_SECONDS: '1' });
  });
  after(() => running?.gateway.stop());

  it('is recorded as expired, refuses a late approval, and never runs', async () => {
    const admin = adminClient(running!.gateway.url);
    const { cookie, csrf } = await admin.login(PASSWORD);
    const value = `late-${randomUUID()}`;
    await post(running!, value);
    // The approval's id from the action's record (the approvals page lists it only while it waits,
    // which with one second to decide may be over before the page is read).
    const approval = await waitFor(async () => (await actionRecord(running!, value))?.detail.approvalId, 20_000, 'the approval');
    await waitFor(async () => (await actionStatus(running!, value)) === 'expired', 20_000, 'the expiry');
    const late = await admin.post(`/settings/approvals/${approval}/approve`, { csrf }, cookie);
    expect(late.status).to.equal(303);
    const page = await (await admin.get('/settings/approvals', `${cookie}; ${cookieFrom(late, 'agw_flash')}`)).text();
    expect(page).to.contain('This approval has expired: the action was not run');
    expect(await actionStatus(running!, value)).to.equal('expired');
    // Had the late approval queued the action, it would have run once the queues are empty.
    await queuesDrained(running!.gateway.url);
    expect(await lines(running!.dir)).to.not.include(value);
  });
});
