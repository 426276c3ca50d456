import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { adminClient, cookieFrom, setAdminPassword } from '../support/admin-http.js';
import { runCli, startGateway, tempDir, type GatewayProcess } from '../support/gateway-process.js';
import { migratedDataDir } from '../support/data-dirs.js';
import { createKey, runningServerAdmin, waitFor } from '../support/http.js';
import { createScratchDatabase, describeWithPostgres, type ScratchDatabase } from '../support/postgres.js';

/*
 * The delivery log on the built server: every request that fired a trigger is listed with its
 * runs (admin UI, CLI) and can be replayed — its triggers fire again with the request exactly as
 * stored. A command action appends the request's `id` to runs.txt: what a user sees run.
 */

const PASSWORD = 'a long admin password';
/**
 * Shell syntax in the value: it must reach the command as data, on the replay as on the first
 * run. A C1 escape (CSI, "clear the screen") and a right-to-left override: shown, never acted on.
 */
const hostile = (tag: string): string => `${tag} $(touch PWNED) \`touch PWNED\` ü 🎉 \u009b2J \u202e`;

const triggerFile = (): string =>
  JSON.stringify([
    { name: 'record', watch_path: '/webhook', enabled: true, actions: [{ type: 'command', command: `printf '%s\\n' {{body.id}} >> runs.txt` }] },
  ]);

interface Setup {
  readonly dir: string;
  readonly env: Record<string, string>;
}

const prepare = async (extra: Record<string, string> = {}): Promise<Setup> => {
  const dir = await tempDir('deliveries');
  await writeFile(join(dir, 'TRIGGERS.json'), triggerFile());
  return { dir, env: { DATA_DIR: await migratedDataDir('deliveries-data'), TRIGGERS_FILE: join(dir, 'TRIGGERS.json'), TRIGGERS_DIR: dir, ...extra } };
};

const runLines = async (dir: string): Promise<string[]> => {
  const text = await readFile(join(dir, 'runs.txt'), 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean);
};

/** Posts one webhook carrying `id` and waits until its command has run; returns the stored request's id. */
const deliver = async (gateway: GatewayProcess, key: string, dir: string, id: string, env: Record<string, string>): Promise<string> => {
  const response = await fetch(`${gateway.url}/api/webhook`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ id }),
  });
  expect(response.status).to.equal(200);
  await waitFor(async () => (await runLines(dir)).includes(id), 20_000, `the command for ${id}`);
  // Found through the running server's admin socket as the CLI reaches it, without a CLI process
  // per stored request (the CLI's own commands are the subject of the tests that run them); on
  // PostgreSQL (no socket) with the CLI.
  const server = await runningServerAdmin(env);
  if (server !== undefined) {
    const rows = await server.deliveries(new URLSearchParams({ path: '/webhook', limit: '500' }).toString());
    return waitFor(async () => {
      for (const row of rows) {
        const shown = (await server.delivery(String(row.id))) as { request: { request: string } };
        if ((JSON.parse(shown.request.request) as { body: { id?: string } }).body.id === id) return String(row.id);
      }
      return undefined;
    });
  }
  const listed = await runCli(['deliveries', 'list', '--json', '--path', '/webhook', '--limit', '500'], env);
  expect(listed.code, listed.stderr).to.equal(0);
  return waitFor(async () => {
    for (const row of JSON.parse(listed.stdout) as Array<{ id: string }>) {
      const shown = await runCli(['deliveries', 'show', row.id, '--json'], env);
      if ((JSON.parse(shown.stdout) as { request: { body: { id?: string } } }).request.body.id === id) return row.id;
    }
    return undefined;
  });
};

const countOf = (lines: readonly string[], id: string): number => lines.filter((line) => line === id).length;

describe('e2e: the delivery log and its replay (embedded database)', function () {
  this.timeout(180_000);
  let setup: Setup;
  let gateway: GatewayProcess | undefined;
  let key: string;

  before(async () => {
    setup = await prepare();
    gateway = await startGateway(setup.env);
    key = await createKey(setup.env);
    expect(await setAdminPassword(setup.env, PASSWORD)).to.equal(0);
  });
  after(() => gateway?.stop());

  it('lists and shows a delivery in the admin UI, and its replay runs the command again with the same value, recorded as a replay', async () => {
    const value = hostile(`ui-${randomUUID()}`);
    const original = await deliver(gateway!, key, setup.dir, value, setup.env);
    const admin = adminClient(gateway!.url);
    const { cookie, csrf } = await admin.login(PASSWORD);

    const list = await (await admin.get('/settings/deliveries?path=%2Fwebhook&trigger=record', cookie)).text();
    expect(list).to.contain(`/settings/deliveries/${original}`).and.to.contain('<code>/api/webhook</code>');
    const page = await (await admin.get(`/settings/deliveries/${original}`, cookie)).text();
    expect(page).to.contain('succeeded').and.to.contain('exit code 0').and.to.contain('Replay');
    // The request as stored, escaped like every value on the pages (eta: & < > " '), its C1
    // control and its right-to-left override as escapes (as on the approvals page).
    const asShown = value.replace(/&/g, '&amp;').replace(/'/g, '&#39;').replace('\u009b', '\\u009b').replace('\u202e', '\\u202e');
    expect(page).to.contain(`&quot;id&quot;: &quot;${asShown}&quot;`);
    expect(page).not.to.match(/[\u009b\u202e]/);

    const replayed = await admin.post(`/settings/deliveries/${original}/replay`, { csrf }, cookie);
    expect(replayed.status).to.equal(303);
    const replayPage = replayed.headers.get('location')!;
    expect(replayPage)
      .to.match(/^\/settings\/deliveries\/[0-9a-f-]{36}$/)
      .and.not.to.contain(original);
    await waitFor(async () => countOf(await runLines(setup.dir), value) === 2, 20_000, 'the replayed command');
    const flash = cookieFrom(replayed, 'agw_flash');
    const shown = await (await admin.get(replayPage, `${cookie}; ${flash}`)).text();
    expect(shown).to.contain('Replayed: fired record.').and.to.contain(`href="/settings/deliveries/${original}"`);
    expect(existsSync(join(setup.dir, 'PWNED'))).to.equal(false);
  });

  it('refuses a replay without the form token, and answers 404 for a delivery that is not stored', async () => {
    const original = await deliver(gateway!, key, setup.dir, `csrf-${randomUUID()}`, setup.env);
    const admin = adminClient(gateway!.url);
    const { cookie } = await admin.login(PASSWORD);
    expect((await admin.post(`/settings/deliveries/${original}/replay`, { csrf: 'forged' }, cookie)).status).to.equal(403);
    expect((await admin.get(`/settings/deliveries/${randomUUID()}`, cookie)).status).to.equal(404);
    expect((await admin.get('/settings/deliveries/not-an-id', cookie)).status).to.equal(404);
    expect((await admin.get('/settings/deliveries?before=yesterday', cookie)).status).to.equal(400);
  });

  it('`deliveries list|show|replay` work through the running server, byte for byte', async () => {
    const value = hostile(`cli-${randomUUID()}`);
    const original = await deliver(gateway!, key, setup.dir, value, setup.env);
    const shown = await runCli(['deliveries', 'show', original], setup.env);
    expect(shown.code, shown.stderr).to.equal(0);
    expect(shown.stdout)
      .to.contain(`Delivery ${original}: /api/webhook`)
      .and.to.contain('Trigger record (run ')
      .and.to.contain('action 0 (command): succeeded, exit 0');
    // The stored request is the caller's text: its control characters reach the terminal escaped.
    expect(shown.stdout)
      .to.contain('\\x9b2J \\u202e')
      .and.not.to.match(/[\u009b\u202e]/);

    const replay = await runCli(['deliveries', 'replay', original], setup.env);
    expect(replay.code, replay.stderr).to.equal(0);
    const [, replayId] = /^Replayed \S+ as (\S+): fired record\n$/.exec(replay.stdout) ?? [];
    expect(replayId, replay.stdout).to.be.a('string');
    await waitFor(async () => countOf(await runLines(setup.dir), value) === 2, 20_000, 'the replayed command');
    const listed = JSON.parse((await runCli(['deliveries', 'list', '--json', '--trigger', 'record'], setup.env)).stdout) as Array<{
      id: string;
      path: string;
      triggers: string[];
      replay_of: string | null;
    }>;
    expect(listed.find((row) => row.id === replayId)).to.deep.include({ replay_of: original });
    expect(listed.find((row) => row.id === replayId)).to.deep.include({ path: '/api/webhook', triggers: ['record'] });
    const replayShown = JSON.parse((await runCli(['deliveries', 'show', replayId, '--json'], setup.env)).stdout) as {
      request: unknown;
      replay_of: string;
    };
    expect(replayShown.replay_of).to.equal(original);
    const originalShown = JSON.parse((await runCli(['deliveries', 'show', original, '--json'], setup.env)).stdout) as {
      request: unknown;
      runs: Array<{ trigger: string; run_id: string; actions: Array<Record<string, unknown>> }>;
    };
    expect(replayShown.request).to.deep.equal(originalShown.request);
    // The action as an operator reads it, snake_case; the service's own details (its fingerprints) left out.
    const [run] = originalShown.runs;
    expect(run.trigger).to.equal('record');
    expect(Object.keys(run.actions[0])).to.deep.equal([
      'action_index',
      'type',
      'status',
      'attempts',
      'started_at',
      'finished_at',
      'error',
      'exit_code',
      'command_ms',
      'http_status',
      'job_id',
      'approval_id',
      'output',
    ]);
    expect(run.actions[0]).to.deep.include({ action_index: 0, type: 'command', status: 'succeeded', exit_code: 0, http_status: null, error: null });
  });

  it('`deliveries` fails with one line and exit code 1 for an unknown id or a bad option', async () => {
    const unknown = randomUUID();
    for (const args of [
      ['deliveries', 'show', unknown],
      ['deliveries', 'replay', unknown],
    ]) {
      const result = await runCli(args, setup.env);
      expect(result.code, args.join(' ')).to.equal(1);
      expect(result.stderr).to.contain(`No stored request with id ${unknown}`);
    }
    const bad = await runCli(['deliveries', 'list', '--limit', '0'], setup.env);
    expect(bad.code, 'a value the command cannot take: a usage error').to.equal(2);
    expect(bad.stderr).to.contain('limit must be a whole number from 1 to 500');
  });
});

describe('e2e: `deliveries replay` on the embedded database with no server running', function () {
  this.timeout(180_000);

  it('opens the database itself and queues the runs (the task queue on the CLI’s own thread); the next start runs them', async () => {
    const setup = await prepare();
    const value = hostile(`offline-${randomUUID()}`);
    const first = await startGateway(setup.env);
    let original: string;
    try {
      original = await deliver(first, await createKey(setup.env), setup.dir, value, setup.env);
    } finally {
      await first.stop();
    }
    const replay = await runCli(['deliveries', 'replay', original], setup.env);
    expect(replay.code, replay.stderr).to.equal(0);
    expect(replay.stderr).to.match(/^using the embedded database in \S+ \(not in use by a server\)/);
    expect(replay.stdout).to.match(/^Replayed \S+ as \S+: fired record\n$/);
    expect(countOf(await runLines(setup.dir), value), 'a run before any service started').to.equal(1);

    const second = await startGateway(setup.env);
    try {
      await waitFor(async () => countOf(await runLines(setup.dir), value) === 2, 30_000, 'the replayed command');
    } finally {
      await second.stop();
    }
  });
});

describeWithPostgres('e2e: the delivery log on PostgreSQL', function () {
  this.timeout(180_000);
  let setup: Setup;
  let database: ScratchDatabase | undefined;
  let gateway: GatewayProcess | undefined;

  before(async () => {
    database = await createScratchDatabase();
    setup = await prepare({ DATABASE_URL: database.url });
    gateway = await startGateway(setup.env);
  });
  after(async () => {
    await gateway?.stop();
    await database?.drop();
  });

  it('`deliveries replay` on the database itself queues the runs, and the running service runs them', async () => {
    const key = await createKey(setup.env);
    const value = hostile(`pg-${randomUUID()}`);
    const original = await deliver(gateway!, key, setup.dir, value, setup.env);
    const replay = await runCli(['deliveries', 'replay', original], setup.env);
    expect(replay.code, replay.stderr).to.equal(0);
    expect(replay.stdout).to.match(/^Replayed \S+ as \S+: fired record\n$/);
    await waitFor(async () => countOf(await runLines(setup.dir), value) === 2, 30_000, 'the replayed command');
  });
});
