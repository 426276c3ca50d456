import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { access, readdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { FileIntakeJournal } from '../../src/adapters/intake/file-intake-journal.js';
import { orderedTaskId } from '../../src/adapters/queue/task-ids.js';
import { earlyIntakeFiles } from '../../src/container/early-intake-files.js';
import { snapshotRequest } from '../../src/domain/templates/request-snapshot.js';
import { itAsRoot } from '../support/accounts.js';
import { recordingTriggerSetUp } from '../support/recording-trigger.js';
import { runCli, startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { createKey, waitFor } from '../support/http.js';

/*
 * On the embedded database, a request that fires triggers is answered once it is in the running
 * service's journal (JournaledIntake), and stored in the database and run right after. The built
 * service: what it answered is run once, is listed at once, and what a crash left in the journal
 * is stored and run once by the next start.
 */
const INTAKE_STARTED = 'requests that fire triggers are made durable in the intake journal before their answer';

/** A journal file holding requests to /webhook of these body ids (what a crash leaves: answered, not stored). */
const journalHolding = async (file: string, ids: readonly string[]): Promise<void> => {
  const journal = new FileIntakeJournal(file);
  for (const id of ids)
    await journal.append({
      request: {
        id: crypto.randomUUID(),
        watchPath: '/webhook',
        receivedAt: new Date(),
        request: JSON.stringify(snapshotRequest({ id }, {}, { 'content-type': 'application/json' })),
        triggers: ['run'],
        runs: [{ trigger: 'run', runId: orderedTaskId() }],
        replayOf: null,
      },
    });
  await journal.close();
};

describe('e2e: webhooks answered from the running service’s journal (embedded database)', () => {
  let gateway: GatewayProcess | undefined;
  /** A file made immutable (`chattr +i`) by a test: made mutable again after it. */
  let immutable: string | undefined;
  afterEach(async () => {
    await gateway?.stop();
    gateway = undefined;
    if (immutable !== undefined) execFileSync('chattr', ['-i', immutable]);
    immutable = undefined;
  });

  // At debug level: the line saying the journal takes requests is a debug line.
  const setUp = () => recordingTriggerSetUp('journaled', { LOG_LEVEL: 'debug' });

  const post = (url: string, key: string, id: string) =>
    fetch(`${url}/api/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify({ id }) });

  it('runs each answered request once, and lists every one of them as soon as they are answered', async function () {
    this.timeout(120_000);
    const { env, ran } = await setUp();
    gateway = await startGateway(env);
    const key = await createKey(env);
    // The journal takes requests once the start stored what it held (the first background pass).
    await gateway.logLine((line) => line.msg === INTAKE_STARTED, 'the journal takes requests');
    const ids = Array.from({ length: 100 }, (_, i) => `id-${String(i).padStart(3, '0')}`);
    const answers = await Promise.all(ids.map(async (id) => (await post(gateway!.url, key, id)).json()));
    expect(answers.every((answer) => JSON.stringify(answer) === '{"ok":true,"triggers":["run"]}')).to.equal(true);
    // Listed at once, through the server (the delivery log waits for what was answered before).
    const listed = await runCli(['deliveries', 'list', '--limit', '500', '--json'], env);
    expect(listed.code, listed.stderr).to.equal(0);
    expect((JSON.parse(listed.stdout) as unknown[]).length).to.equal(100);
    await waitFor(async () => (await ran()).length >= 100, 60_000, 'every request ran');
    await gateway.stop();
    gateway = undefined;
    expect(await ran()).to.deep.equal(ids);
  });

  it('stores and runs once, at the next start, what a crash left in the journal; the journal is empty after', async function () {
    this.timeout(90_000);
    const { env, dataDir, ran } = await setUp();
    // What a SIGKILL between the answer and the store leaves: the request in the journal only.
    const file = earlyIntakeFiles(dataDir).requests[1];
    await journalHolding(file, ['left-1', 'left-2']);
    gateway = await startGateway(env);
    await waitFor(async () => (await ran()).length >= 2, 30_000, 'the journal’s requests ran');
    await gateway.stop();
    gateway = undefined;
    expect(await ran()).to.deep.equal(['left-1', 'left-2']);
    // Set aside (renamed) at the start, stored, then removed: the journals are empty.
    expect((await stat(file)).size).to.equal(0);
    expect((await readdir(join(dataDir, 'intake'))).filter((name) => name.startsWith('left-'))).to.deep.equal([]);
    // Stored: a later start runs nothing again.
    gateway = await startGateway(env);
    const key = await createKey(env);
    expect(await (await post(gateway.url, key, 'after')).json()).to.deep.equal({ ok: true, triggers: ['run'] });
    await waitFor(async () => (await ran()).includes('after'), 30_000, 'the new request ran');
    expect(await ran()).to.deep.equal(['after', 'left-1', 'left-2']);
  });

  it('a kill -9 while requests are answered: every request answered 200 runs exactly once after the restart', async function () {
    this.timeout(120_000);
    const { env, ran } = await setUp();
    gateway = await startGateway(env);
    const key = await createKey(env);
    await gateway.logLine((line) => line.msg === INTAKE_STARTED, 'the journal takes requests');
    const accepted: string[] = [];
    let n = 0;
    // Eight callers sending one after another until the process dies under them.
    const caller = async () => {
      for (;;) {
        const id = `k-${String(n++).padStart(5, '0')}`;
        try {
          const response = await post(gateway!.url, key, id);
          if (response.status === 200) accepted.push(id);
          else await response.body?.cancel();
        } catch {
          return;
        }
      }
    };
    const callers = Array.from({ length: 8 }, caller);
    await waitFor(async () => accepted.length >= 300, 60_000, '300 requests answered');
    await gateway.kill();
    await Promise.all(callers);
    gateway = await startGateway(env);
    // Every answered one, not as many as were answered: a request whose answer the kill cut off
    // may run too, and counting runs let the wait end with answered ones still to run.
    await waitFor(
      async () => {
        const runs = new Set(await ran());
        return accepted.every((id) => runs.has(id));
      },
      60_000,
      'every answered request ran',
    );
    await gateway.stop();
    gateway = undefined;
    const runs = await ran();
    // Each answered one exactly once; one whose answer the kill cut off may have run too, once.
    expect(runs.filter((id) => accepted.includes(id))).to.deep.equal([...accepted].sort());
    expect(new Set(runs).size).to.equal(runs.length);
  });

  itAsRoot('stores and runs the journals set aside by an earlier start even when the current ones cannot be set aside', async () => {
    const { env, dataDir, ran } = await setUp();
    const files = earlyIntakeFiles(dataDir).requests;
    // An earlier start set this journal aside, then was killed before storing it.
    await journalHolding(join(dirname(files[0]), 'left-1-0.jsonl'), ['left-a', 'left-b']);
    // What the killed process's intake held, in a file that can be neither linked nor renamed
    // (immutable: as a file system that refuses both would).
    await journalHolding(files[0], ['held-c']);
    execFileSync('chattr', ['+i', files[0]]);
    immutable = files[0];
    gateway = await startGateway(env);
    await waitFor(async () => (await ran()).length >= 2, 30_000, 'the requests set aside before ran');
    expect(await ran()).to.deep.equal(['left-a', 'left-b']);
    // The pass failed (said at error level), and the journal that could not be set aside is kept for the next one.
    await gateway.logLine((line) => line.level === 50 && typeof line.msg === 'string' && line.msg.includes('intake journals'), 'the pass failed', 20_000);
    await access(files[0]);
  });

  itAsRoot('a set-aside journal that keeps failing to be stored does not hold back those after it; the intake still takes requests', async () => {
    const { env, dataDir, ran } = await setUp();
    const dir = dirname(earlyIntakeFiles(dataDir).requests[0]);
    // Two journals set aside by earlier starts; the first cannot be emptied nor removed (immutable:
    // any lasting error on that one file, as an EIO would be).
    const first = join(dir, 'left-1-0.jsonl');
    await journalHolding(first, ['first-a']);
    await journalHolding(join(dir, 'left-2-0.jsonl'), ['second-a']);
    execFileSync('chattr', ['+i', first]);
    immutable = first;
    gateway = await startGateway(env);
    const key = await createKey(env);
    await waitFor(async () => (await ran()).includes('second-a'), 30_000, 'the second set-aside journal’s request ran');
    // The file that failed is named, and the pass's failure says the intake still takes requests.
    await gateway.logLine((line) => line.level === 50 && line.file === first, 'the failed file named', 20_000);
    const pass = await gateway.logLine(
      (line) => line.level === 50 && typeof line.msg === 'string' && line.msg.includes('intake journals'),
      'the pass failed',
      20_000,
    );
    expect(pass.msg).to.match(/^storing the intake journals set aside failed .*requests are still made durable in the intake journal/);
    await gateway.logLine((line) => line.msg === INTAKE_STARTED, 'the journal takes requests');
    expect(await (await post(gateway.url, key, 'after')).json()).to.deep.equal({ ok: true, triggers: ['run'] });
    expect((await readdir(dir)).filter((name) => name.startsWith('left-'))).to.deep.equal(['left-1-0.jsonl']);
  });
});
