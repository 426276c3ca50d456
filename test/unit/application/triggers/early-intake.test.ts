import { expect } from 'chai';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeApiKeyCrypto } from '../../../../src/adapters/crypto/node-api-key-crypto.js';
import { FileIntakeJournal } from '../../../../src/adapters/intake/file-intake-journal.js';
import { triggerCatalog } from '../../../../src/container/trigger-catalog.js';
import { EarlyIntake, EarlyIntakeStopped } from '../../../../src/application/triggers/early-intake.js';
import { ImportEarlyIntake } from '../../../../src/application/triggers/import-early-intake.js';
import { DispatchTriggerRuns } from '../../../../src/application/triggers/dispatch-trigger-runs.js';
import { FireTriggers } from '../../../../src/application/triggers/fire-triggers.js';
import { snapshotRequest } from '../../../../src/domain/templates/request-snapshot.js';
import { validateTriggers } from '../../../../src/domain/triggers/validate-triggers.js';
import { FixedClock } from '../../../fakes/fixed-clock.js';
import { InMemoryInboundRequestStore } from '../../../fakes/in-memory-inbound-request-store.js';
import { InMemoryKeyRepository } from '../../../fakes/in-memory-key-repository.js';
import { InMemoryTaskQueue } from '../../../fakes/in-memory-task-queue.js';
import { InMemoryTriggerLanes } from '../../../fakes/in-memory-trigger-lanes.js';
import { RecordingLogger } from '../../../fakes/recording-logger.js';
import { SequentialIds } from '../../../fakes/sequential-ids.js';
import { earlyIntakeFor } from '../../../support/early-intake.js';

const crypto = new NodeApiKeyCrypto();
const KEY = crypto.mint();
const OTHER_KEY = crypto.mint();
const keyRecord = (key: string, id: string) => ({
  id,
  name: id,
  keyHash: crypto.digest(key),
  prefix: key.slice(0, 8),
  createdAt: new Date(0),
  lastUsedAt: null,
});

const triggersOf = (raw: unknown[]) => {
  const { triggers, problems } = validateTriggers(raw, 'TRIGGERS.json', triggerCatalog());
  if (problems.length > 0) throw new Error(problems.join('\n'));
  return triggers;
};
const TRIGGERS = triggersOf([
  { name: 'run', watch_path: '/webhook', enabled: true, actions: [{ type: 'command', command: 'true' }] },
  {
    name: 'only-push',
    watch_path: '/webhook',
    enabled: true,
    when: { 'headers.x-event': { equals: 'push' } },
    actions: [{ type: 'command', command: 'true' }],
  },
  { name: 'off', watch_path: '/webhook', enabled: false, actions: [{ type: 'command', command: 'false' }] },
  { name: 'elsewhere', watch_path: '/create-job', enabled: true, actions: [{ type: 'command', command: 'true' }] },
]);

const make = (triggers = TRIGGERS) => earlyIntakeFor(triggers, KEY);

const hostile = snapshotRequest(
  { id: 12345678901234567890n.toString(), text: "'; rm -rf / #" },
  {},
  { 'x-event': 'push', 'x-api-key': KEY, 'content-type': 'application/json' },
);

describe('EarlyIntake', () => {
  it('admits a key the snapshot knows, and nothing else: an unknown, a malformed or a missing key waits for the service', () => {
    const { intake } = make();
    expect(intake.admit(KEY, 100, 0)).to.deep.equal({ keyId: 'key-1', keyHash: crypto.digest(KEY) });
    expect(intake.admit(OTHER_KEY, 100, 0)).to.equal(undefined);
    expect(intake.admit(`${KEY} `, 100, 0)).to.equal(undefined);
    expect(intake.admit('', 100, 0)).to.equal(undefined);
    expect(intake.admit(undefined, 100, 0)).to.equal(undefined);
  });

  it('stores in the journal what FireTriggers would store for the same request, and answers the same triggers', async () => {
    const { intake, journal, logger } = make();
    const admitted = intake.admit(KEY, 100, 0);
    if (admitted === undefined) throw new Error('the key was not admitted');
    expect(await intake.take(admitted, hostile)).to.deep.equal(['run', 'only-push']);
    const requests = new InMemoryInboundRequestStore();
    const fire = new FireTriggers(
      TRIGGERS,
      requests,
      new InMemoryTaskQueue(),
      new SequentialIds(),
      new FixedClock(new Date('2026-12-01T00:00:00Z')),
      new RecordingLogger(),
      new InMemoryTriggerLanes(),
    );
    expect(await fire.execute({ watchPath: '/webhook', request: hostile })).to.deep.equal(['run', 'only-push']);
    const [fired] = [...requests.requests.values()];
    expect(journal.entries).to.have.length(1);
    const [{ request, keyId, keyHash }] = journal.entries;
    expect({ keyId, keyHash }).to.deep.equal({ keyId: 'key-1', keyHash: crypto.digest(KEY) });
    const { runs, ...rest } = request;
    const { runs: firedRuns, ...firedRest } = fired;
    expect(rest).to.deep.equal(firedRest);
    expect(runs.map((run) => run.trigger)).to.deep.equal(firedRuns.map((run) => run.trigger));
    expect(new Set(runs.map((run) => run.runId)).size).to.equal(2);
    // The request's text, never a log field.
    expect(JSON.stringify(logger.entries)).not.to.include('rm -rf');
    expect(logger.entries.map((entry) => entry.fields)).to.deep.include({
      watchPath: '/webhook',
      triggers: ['run', 'only-push'],
      requestId: request.id,
      early: true,
    });
  });

  it('stores nothing for a request that fires no trigger (a when that does not match): answered with no trigger, as FireTriggers', async () => {
    const { intake, journal } = make(TRIGGERS.filter((trigger) => trigger.name === 'only-push'));
    const admitted = intake.admit(KEY, 100, 0);
    if (admitted === undefined) throw new Error('the key was not admitted');
    expect(await intake.take(admitted, snapshotRequest({}, {}, { 'x-event': 'issues' }))).to.deep.equal([]);
    expect(journal.entries).to.deep.equal([]);
  });

  it('admits nothing the journal has no room for: such a request waits for the service', () => {
    const { intake, journal } = make();
    journal.room = 10_000;
    expect(intake.admit(KEY, 100, 0)).to.equal(undefined);
    journal.room = 1_000_000;
    expect(intake.admit(KEY, 100, 0)).not.to.equal(undefined);
    expect(intake.admit(KEY, 600_000, 0)).to.equal(undefined);
  });

  it('holds the room of each request it admits until the journal counts it (take) or it is let go (release): two that fit only one at a time are not both admitted', async () => {
    const { intake, journal } = make();
    journal.room = 60_000;
    const first = intake.admit(KEY, 1000, 500);
    if (first === undefined) throw new Error('the first request was not admitted');
    expect(intake.admit(KEY, 1000, 500), 'a second while the first holds its room').to.equal(undefined);
    intake.release(first);
    const second = intake.admit(KEY, 1000, 500);
    if (second === undefined) throw new Error('the second request was not admitted once the first was let go');
    // Taken: the journal counts its line (far less than the room held for it), which is free again.
    expect(await intake.take(second, snapshotRequest({ n: 1 }, {}, {}))).to.deep.equal(['run']);
    intake.release(second);
    expect(intake.admit(KEY, 1000, 500)).not.to.equal(undefined);
  });

  it("holds room for the largest line a request can take: a body's numbers and escapes, and its headers' escapes, never take more", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agw-early-line-'));
    try {
      const file = join(dir, 'journal.jsonl');
      const journal = new FileIntakeJournal(file);
      await journal.open();
      let asked = 0;
      const measured = Object.assign(Object.create(journal) as FileIntakeJournal, {
        hasRoom: (bytes: number) => ((asked = bytes), journal.hasRoom(bytes)),
        append: journal.append.bind(journal),
      });
      const crypto = new NodeApiKeyCrypto();
      const intake = new EarlyIntake(
        TRIGGERS,
        ['/webhook'],
        new Map([[crypto.digest(KEY), 'key-1']]),
        crypto,
        measured,
        new SequentialIds(),
        () => '71000000-0000-7000-8000-000000000001',
        new FixedClock(new Date('2026-12-01T00:00:00Z')),
        new RecordingLogger(),
      );
      const quoted = { 'x-event': 'push', 'x-quoted': '"\\'.repeat(2000), 'x-api-key': KEY };
      const bodies = [
        '1e20',
        `[${Array.from({ length: 5000 }, () => '-1e20').join(',')}]`,
        `[${Array.from({ length: 5000 }, () => '1e-6').join(',')}]`,
        JSON.stringify(['"\\'.repeat(5000)]),
        `["${'\\u0000\\ud800\\n'.repeat(1000)}"]`,
        JSON.stringify({ text: 'é€😀\u2028'.repeat(1000) }),
      ];
      for (const text of bodies) {
        const before = (await stat(file)).size;
        const admitted = intake.admit(KEY, Buffer.byteLength(text), Buffer.byteLength(JSON.stringify(quoted)));
        if (admitted === undefined) throw new Error('the request was not admitted');
        await intake.take(admitted, snapshotRequest(JSON.parse(text), {}, quoted));
        expect((await stat(file)).size - before, text.slice(0, 20)).to.be.at.most(asked);
      }
      await journal.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('admits nothing when a trigger watching the endpoint keeps order (concurrency): those requests wait for the task queue', () => {
    const { intake } = make(
      triggersOf([{ name: 'lane', watch_path: '/webhook', enabled: true, concurrency: 1, actions: [{ type: 'command', command: 'true' }] }]),
    );
    expect(intake.admit(KEY, 100, 0)).to.equal(undefined);
  });

  it('rejects a request the journal cannot keep: its caller is not told it was accepted', async () => {
    const { intake, journal } = make();
    const admitted = intake.admit(KEY, 100, 0);
    if (admitted === undefined) throw new Error('the key was not admitted');
    journal.failNext = new Error('disk full');
    let failure: unknown;
    await intake.take(admitted, hostile).catch((error: unknown) => (failure = error));
    expect((failure as Error).message).to.equal('disk full');
    expect(journal.entries).to.deep.equal([]);
  });

  it('after stop: admits nothing, refuses a request admitted before (EarlyIntakeStopped), and stop waits for the requests being stored', async () => {
    const { intake, journal } = make();
    const admitted = intake.admit(KEY, 100, 0);
    if (admitted === undefined) throw new Error('the key was not admitted');
    const taken = intake.take(admitted, hostile);
    await intake.stop();
    // Stored before stop resolved: the journal read after it holds it.
    expect(journal.entries).to.have.length(1);
    expect(await taken).to.deep.equal(['run', 'only-push']);
    expect(intake.admit(KEY, 100, 0)).to.equal(undefined);
    let failure: unknown;
    await intake.take(admitted, hostile).catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(EarlyIntakeStopped);
    expect(journal.entries).to.have.length(1);
  });
});

describe('ImportEarlyIntake', () => {
  const setUp = async () => {
    const { intake, journal } = make();
    const keys = new InMemoryKeyRepository();
    await keys.add(keyRecord(KEY, 'key-1'));
    const requests = new InMemoryInboundRequestStore();
    const queue = new InMemoryTaskQueue();
    const logger = new RecordingLogger();
    const dispatch = new DispatchTriggerRuns(TRIGGERS, requests, queue, new InMemoryTriggerLanes(), new FixedClock(), logger);
    const importer = new ImportEarlyIntake(journal, keys, crypto, requests, dispatch, logger);
    const admitted = intake.admit(KEY, 100, 0);
    if (admitted === undefined) throw new Error('the key was not admitted');
    return { intake, admitted, journal, keys, requests, queue, dispatch, importer, logger };
  };

  it('stores each request and queues its runs once, under the ids the early intake gave them, then empties the journal', async () => {
    const { intake, admitted, journal, keys, requests, queue, dispatch, importer } = await setUp();
    await intake.take(admitted, hostile);
    await intake.take(admitted, snapshotRequest({ n: 2 }, {}, {}));
    const [first, second] = journal.entries.map((entry) => entry.request);
    expect(await importer.execute()).to.deep.equal({ stored: 2, earlier: 0, refused: 0, unreadable: 0 });
    await dispatch.dispatched();
    expect(requests.requests.get(first.id)).to.deep.equal(first);
    expect(requests.requests.get(second.id)).to.deep.equal(second);
    expect(journal.entries).to.deep.equal([]);
    const queued = queue.tasks.map((task) => (task.payload as { runId: string }).runId);
    expect(queued).to.have.members([...first.runs, ...second.runs].map((run) => run.runId));
    // The key's last use is recorded, as authentication records it.
    expect((await keys.findByHash(crypto.digest(KEY)))?.lastUsedAt).to.deep.equal(new Date('2026-12-01T00:00:00Z'));
  });

  it('drops the requests of a key no longer stored (revoked while the service was down): stored nor run, and said in the log', async () => {
    const { intake, admitted, journal, keys, requests, queue, dispatch, importer, logger } = await setUp();
    await intake.take(admitted, hostile);
    await keys.remove('key-1');
    expect(await importer.execute()).to.deep.equal({ stored: 0, earlier: 0, refused: 1, unreadable: 0 });
    await dispatch.dispatched();
    expect(requests.requests.size).to.equal(0);
    expect(queue.tasks).to.deep.equal([]);
    expect(journal.entries).to.deep.equal([]);
    expect(logger.entries.some((entry) => entry.level === 'warn' && entry.message.includes('no longer stored'))).to.equal(true);
  });

  it('drops a request whose key id differs from the stored key of that digest (a key replaced under another id)', async () => {
    const { intake, admitted, keys, requests, importer } = await setUp();
    await intake.take(admitted, hostile);
    await keys.remove('key-1');
    await keys.add(keyRecord(KEY, 'key-2'));
    expect((await importer.execute()).refused).to.equal(1);
    expect(requests.requests.size).to.equal(0);
  });

  it('stores and queues nothing twice when an import is done again (a stop between storing and emptying the journal)', async () => {
    const { intake, admitted, journal, requests, queue, dispatch, importer } = await setUp();
    await intake.take(admitted, hostile);
    const entries = [...journal.entries];
    await importer.execute();
    await dispatch.dispatched();
    journal.entries = entries;
    expect(await importer.execute()).to.deep.equal({ stored: 0, earlier: 1, refused: 0, unreadable: 0 });
    await dispatch.dispatched();
    expect(requests.requests.size).to.equal(1);
    expect(queue.tasks).to.have.length(2);
  });

  it('keeps the whole journal when storing fails, and the next import stores it', async () => {
    const { intake, admitted, journal, requests, importer } = await setUp();
    await intake.take(admitted, hostile);
    requests.failNext = true;
    let failed = false;
    await importer.execute().catch(() => (failed = true));
    expect(failed).to.equal(true);
    expect(journal.entries).to.have.length(1);
    expect((await importer.execute()).stored).to.equal(1);
    expect(journal.clears).to.equal(1);
  });

  it('tells the operator of unreadable lines at error level, and does nothing when the journal is empty', async () => {
    const { journal, importer, logger } = await setUp();
    expect(await importer.execute()).to.deep.equal({ stored: 0, earlier: 0, refused: 0, unreadable: 0 });
    expect(journal.clears).to.equal(0);
    journal.unreadable = 2;
    expect((await importer.execute()).unreadable).to.equal(2);
    expect(logger.entries.some((entry) => entry.level === 'error' && (entry.fields as { unreadable?: number }).unreadable === 2)).to.equal(true);
    expect(journal.clears).to.equal(1);
  });
});
