import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, readlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { FileIntakeJournal } from '../../src/adapters/intake/file-intake-journal.js';
import { FileKeyDigestSnapshot } from '../../src/adapters/intake/file-key-digest-snapshot.js';
import { PinoLogger, createPino } from '../../src/adapters/logging/pino-logger.js';
import { NodeApiKeyCrypto } from '../../src/adapters/crypto/node-api-key-crypto.js';
import { closeEngine } from '../../src/adapters/persistence/open-engine.js';
import { ConfigError, loadConfig } from '../../src/container/config.js';
import { beginStart } from '../../src/container/head-start.js';
import { earlyIntakeFiles } from '../../src/container/early-intake-files.js';
import { startEarlyIntake } from '../../src/container/early-intake-start.js';
import { listenHttp } from '../../src/container/listen-http.js';
import { loadStartFiles } from '../../src/container/load-start-files.js';
import { recordingTriggerSetUp } from '../support/recording-trigger.js';
import { ROOT, runCli, startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { createKey, waitFor } from '../support/http.js';

/*
 * The embedded database takes most of a second or more to open after a crash (its recovery).
 * Requests to the plain webhook arriving meanwhile are answered at once (EarlyIntake), kept in a
 * journal, and stored and run once the database is open. Here the part of a start before the
 * database opens runs in this process (head-start.ts's steps), and is ended there — a crash
 * before the database opened — so that what it took in is certain; the built service started
 * next on the same DATA_DIR stores and runs it.
 */
describe('e2e: webhooks answered while the embedded database opens (early intake)', () => {
  let gateway: GatewayProcess | undefined;
  afterEach(async () => {
    await gateway?.stop();
    gateway = undefined;
  });

  const setUp = () => recordingTriggerSetUp('early-intake');

  /** The start's first steps as the entry takes them, until the database would open: the early intake on a bound port. */
  const headOfAStart = async (env: Record<string, string>, dir: string) => {
    const config = loadConfig({ ...env, LOG_LEVEL: 'silent', HOST: '127.0.0.1', PORT: '0' }, dir);
    const pino = createPino('silent');
    const logger = new PinoLogger(pino);
    const http = await listenHttp(config);
    const early = await startEarlyIntake(config, (await loadStartFiles(config, logger)).triggers, http, pino, logger);
    const crash = async () => {
      await early?.intake.stop();
      await early?.journal.close();
      await http.close(0);
    };
    return { url: `http://127.0.0.1:${http.port}`, http, early, crash };
  };

  it('answers the webhook before the database opens; the next start stores and runs each request once, and empties the journal', async function () {
    this.timeout(90_000);
    const { env, dataDir, dir, ran } = await setUp();
    gateway = await startGateway(env);
    // A key made through the running server: the snapshot the next start reads has it.
    const key = await createKey(env, 'early');
    expect((await new FileKeyDigestSnapshot(earlyIntakeFiles(dataDir).keys).read())?.size).to.equal(1);
    await gateway.stop();
    gateway = undefined;

    const head = await headOfAStart(env, dir);
    expect(head.early, 'the early intake started').not.to.equal(undefined);
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(`${head.url}/api/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key, ...headers }, body });
    const ids = Array.from({ length: 20 }, (_, n) => `early-${n}`);
    const answers = await Promise.all(ids.map((id) => post(JSON.stringify({ id }))));
    for (const answer of answers) {
      expect(answer.status).to.equal(200);
      expect(answer.headers.get('content-type')).to.equal('application/json; charset=utf-8');
      expect(answer.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
      expect(await answer.json()).to.deep.equal({ ok: true, triggers: ['run'] });
    }
    const broken = await post('{"id": ');
    expect(broken.status).to.equal(400);
    expect(await broken.json()).to.deep.equal({ error: 'Invalid JSON body: unexpected end of the body at line 1 column 8' });
    // What it does not take waits for the service (here: for a start that never comes).
    const unknownKey = post(JSON.stringify({ id: 'never' }), { 'x-api-key': `agw_${'A'.repeat(43)}` });
    await waitFor(() => head.http.waiting === 1, 10_000, 'the request with an unknown key held');
    await head.crash();
    expect((await unknownKey).status).to.equal(503);
    expect(await ran()).to.deep.equal([]);

    gateway = await startGateway(env);
    // The server answers the same request as the early intake did.
    const late = await fetch(`${gateway.url}/api/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ id: 'late' }),
    });
    expect(late.status).to.equal(200);
    expect(late.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    expect(await late.json()).to.deep.equal({ ok: true, triggers: ['run'] });
    const expected = [...ids, 'late'].sort();
    await waitFor(async () => (await ran()).length >= expected.length, 30_000, 'every accepted request ran');
    await gateway.stop();
    gateway = undefined;
    expect(await ran()).to.deep.equal(expected);
    expect((await new FileIntakeJournal(earlyIntakeFiles(dataDir).journal).read()).entries).to.deep.equal([]);
    // A later start runs nothing again.
    gateway = await startGateway(env);
    await gateway.logLine((line) => line.msg === 'agent gateway listening', 'the service started');
    await gateway.stop();
    gateway = undefined;
    expect(await ran()).to.deep.equal(expected);
  });

  it('runs nothing of a request whose key was revoked by the CLI while the service was down, though it was answered (the snapshot could not say)', async function () {
    this.timeout(90_000);
    const { env, dataDir, dir, ran } = await setUp();
    gateway = await startGateway(env);
    const key = await createKey(env, 'revoked');
    const snapshot = await readFile(earlyIntakeFiles(dataDir).keys, 'utf8');
    await gateway.stop();
    gateway = undefined;
    // Revoked with the service down; the snapshot then as an earlier version of the CLI left it.
    const listed = await runCli(['keys', 'list', '--json'], env);
    const [{ id }] = JSON.parse(listed.stdout) as Array<{ id: string }>;
    const revoked = await runCli(['keys', 'revoke', id], env);
    expect(revoked.code, revoked.stderr).to.equal(0);
    await writeFile(earlyIntakeFiles(dataDir).keys, snapshot);

    const head = await headOfAStart(env, dir);
    const answer = await fetch(`${head.url}/api/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ id: 'after-revocation' }),
    });
    expect(answer.status).to.equal(200);
    await head.crash();

    gateway = await startGateway(env);
    await gateway.logLine((line) => line.msg === 'requests taken in while the database opened are stored', 'the journal imported', 30_000);
    const dropped = await gateway.logLine((line) => typeof line.msg === 'string' && line.msg.includes('no longer stored'), 'the request dropped');
    expect(dropped.level).to.equal(40);
    await gateway.stop();
    gateway = undefined;
    expect(await ran()).to.deep.equal([]);
  });

  it('a start after one that ended before it served takes nothing in early (a crash loop answers nothing 200); one after a start that served does again', async function () {
    this.timeout(90_000);
    const { env, dataDir, dir } = await setUp();
    // A key in the database: each start that serves writes the snapshot of the stored keys.
    gateway = await startGateway(env);
    await createKey(env, 'early');
    await gateway.stop();
    gateway = undefined;
    // A start that ends before it serves (here: before its database opened).
    const first = await headOfAStart(env, dir);
    expect(first.early, 'the early intake of the first start').not.to.equal(undefined);
    await first.crash();
    const second = await headOfAStart(env, dir);
    await second.crash();
    expect(second.early, 'the early intake after a start that did not serve').to.equal(undefined);
    // A start that serves clears the mark.
    gateway = await startGateway(env);
    await gateway.stop();
    gateway = undefined;
    expect(existsSync(earlyIntakeFiles(dataDir).starting), 'the mark left').to.equal(false);
    const third = await headOfAStart(env, dir);
    await third.crash();
    expect(third.early, 'the early intake after a start that served').not.to.equal(undefined);
  });

  it('a start that a setting fails (an agent action whose provider has no secret) ends before its early intake takes anything in', async function () {
    this.timeout(90_000);
    const { env, dataDir, dir } = await setUp();
    const crypto = new NodeApiKeyCrypto();
    await new FileKeyDigestSnapshot(earlyIntakeFiles(dataDir).keys).write([{ id: 'key-1', keyHash: crypto.digest(crypto.mint()) }]);
    await writeFile(
      env.TRIGGERS_FILE,
      JSON.stringify([
        { name: 'run', watch_path: '/webhook', enabled: true, actions: [{ type: 'command', command: 'true' }] },
        { name: 'agent', watch_path: '/jobs/status', enabled: true, actions: [{ type: 'agent', job: 'x', llm_provider: 'anthropic' }] },
      ]),
    );
    const config = loadConfig({ ...env, LOG_LEVEL: 'silent', HOST: '127.0.0.1', PORT: '0' }, dir);
    const pino = createPino('silent');
    const secret = process.env.ANTHROPIC_API_KEY;
    delete process.env.ANTHROPIC_API_KEY;
    let outcome: unknown;
    try {
      outcome = await beginStart(config, new PinoLogger(pino), pino).catch((error: unknown) => error);
    } finally {
      if (secret !== undefined) process.env.ANTHROPIC_API_KEY = secret;
    }
    if (!(outcome instanceof Error)) {
      // A start that went on: what it opened is closed before the test fails.
      const head = outcome as Awaited<ReturnType<typeof beginStart>>;
      await head.early?.intake.stop();
      await head.early?.journal.close();
      await head.http.close(0);
      await head.engine.then(closeEngine, () => undefined);
    }
    expect(outcome).to.be.instanceOf(ConfigError);
    expect((outcome as Error).message)
      .to.contain('Invalid trigger file')
      .and.to.contain('trigger #1 "agent": actions[0].llm_provider: anthropic needs the secret ANTHROPIC_API_KEY, which is not set');
    expect(existsSync(earlyIntakeFiles(dataDir).journal), 'the early intake started').to.equal(false);
  });

  it('a start that fails once the database is open stops its early intake before it closes anything: nothing more is taken in', async function () {
    this.timeout(90_000);
    const { env, dataDir, dir } = await setUp();
    const crypto = new NodeApiKeyCrypto();
    const key = crypto.mint();
    await new FileKeyDigestSnapshot(earlyIntakeFiles(dataDir).keys).write([{ id: 'key-1', keyHash: crypto.digest(key) }]);
    // A directory where the admin socket goes: the start fails after the database opened.
    await mkdir(join(dataDir, 'admin.sock'));
    // The built service's start, in this process (the whole service runs from dist/ only).
    const built = (module: string) => pathToFileURL(join(ROOT, 'dist', 'container', module)).href;
    const { beginStart: begin } = (await import(built('head-start.js'))) as typeof import('../../src/container/head-start.js');
    const { Gateway } = (await import(built('gateway.js'))) as typeof import('../../src/container/gateway.js');
    const config = loadConfig({ ...env, LOG_LEVEL: 'silent', HOST: '127.0.0.1', PORT: '0' }, dir);
    const pino = createPino('silent');
    const head = await begin(config, new PinoLogger(pino), pino);
    const early = head.early;
    if (early === undefined) throw new Error('the early intake did not start');
    expect(early.intake.admit(key, 10, 0), 'a request taken in while the database opens').not.to.equal(undefined);
    const failure = await Gateway.start(config, pino, head).then(
      async (started) => {
        await started.stop();
        return undefined;
      },
      (error: unknown) => error,
    );
    await early.journal.close();
    expect((failure as Error | undefined)?.message).to.match(/^DATA_DIR: cannot serve the admin socket/);
    expect(early.intake.admit(key, 10, 0), 'a request taken in after the start failed').to.equal(undefined);
  });

  it('a stop closes the early intake’s journal (no file handle left per start and stop in one process)', async function () {
    this.timeout(90_000);
    const { env, dataDir, dir } = await setUp();
    const crypto = new NodeApiKeyCrypto();
    await new FileKeyDigestSnapshot(earlyIntakeFiles(dataDir).keys).write([{ id: 'key-1', keyHash: crypto.digest(crypto.mint()) }]);
    const journalFile = earlyIntakeFiles(dataDir).journal;
    /** This process's open file handles on the early intake's journal (Linux: /proc/self/fd). */
    const handlesOnJournal = async () => {
      let n = 0;
      for (const fd of await readdir('/proc/self/fd')) if ((await readlink(`/proc/self/fd/${fd}`).catch(() => '')) === journalFile) n++;
      return n;
    };
    const built = (module: string) => pathToFileURL(join(ROOT, 'dist', 'container', module)).href;
    const { beginStart: begin } = (await import(built('head-start.js'))) as typeof import('../../src/container/head-start.js');
    const { Gateway } = (await import(built('gateway.js'))) as typeof import('../../src/container/gateway.js');
    const config = loadConfig({ ...env, LOG_LEVEL: 'silent', HOST: '127.0.0.1', PORT: '0' }, dir);
    const pino = createPino('silent');
    const head = await begin(config, new PinoLogger(pino), pino);
    if (head.early === undefined) throw new Error('the early intake did not start');
    const started = await Gateway.start(config, pino, head);
    expect(await handlesOnJournal(), 'the journal is open while the service runs').to.equal(1);
    await started.stop();
    expect(await handlesOnJournal(), 'handles left on the journal after the stop').to.equal(0);
  });
});
