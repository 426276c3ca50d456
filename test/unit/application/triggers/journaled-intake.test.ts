import { expect } from 'chai';
import { join } from 'node:path';
import { FileIntakeJournal, setAsideJournal } from '../../../../src/adapters/intake/file-intake-journal.js';
import { NodeApiKeyCrypto } from '../../../../src/adapters/crypto/node-api-key-crypto.js';
import { DispatchTriggerRuns, type TriggerRunTask } from '../../../../src/application/triggers/dispatch-trigger-runs.js';
import { FireTriggers } from '../../../../src/application/triggers/fire-triggers.js';
import { ImportEarlyIntake } from '../../../../src/application/triggers/import-early-intake.js';
import { afterJournaledRequests, JournaledIntake } from '../../../../src/application/triggers/journaled-intake.js';
import { triggerCatalog } from '../../../../src/container/trigger-catalog.js';
import { snapshotRequest } from '../../../../src/domain/templates/request-snapshot.js';
import type { Trigger } from '../../../../src/domain/triggers/trigger.js';
import { validateTriggers } from '../../../../src/domain/triggers/validate-triggers.js';
import type { InboundRequest } from '../../../../src/ports/inbound-request-store.js';
import { fillingDisk } from '../../../fakes/filling-disk.js';
import { FixedClock } from '../../../fakes/fixed-clock.js';
import { InMemoryInboundRequestStore } from '../../../fakes/in-memory-inbound-request-store.js';
import { InMemoryIntakeJournal } from '../../../fakes/in-memory-intake-journal.js';
import { InMemoryKeyRepository } from '../../../fakes/in-memory-key-repository.js';
import { InMemoryTaskQueue } from '../../../fakes/in-memory-task-queue.js';
import { InMemoryTriggerLanes } from '../../../fakes/in-memory-trigger-lanes.js';
import { RecordingLogger } from '../../../fakes/recording-logger.js';
import { SequentialIds } from '../../../fakes/sequential-ids.js';
import { tempDir } from '../../../support/gateway-process.js';

const triggersOf = (raw: unknown[]): Trigger[] => {
  const { triggers, problems } = validateTriggers(raw, 'TRIGGERS.json', triggerCatalog());
  if (problems.length > 0) throw new Error(problems.join('\n'));
  return triggers;
};
const TRIGGERS = triggersOf([
  { name: 'run', watch_path: '/webhook', enabled: true, actions: [{ type: 'command', command: 'true' }] },
  { name: 'in-order', watch_path: '/create-job', enabled: true, concurrency: 1, actions: [{ type: 'command', command: 'true' }] },
]);

/** A store whose inserts wait while `hold` is set: requests are being stored meanwhile. */
class HeldStore extends InMemoryInboundRequestStore {
  hold: Promise<void> | undefined;
  /** Holds the inserts from now on; the function returned lets them through. */
  held(): () => void {
    let release = (): void => undefined;
    this.hold = new Promise<void>((resolve) => (release = resolve));
    return () => release();
  }
  override async record(request: InboundRequest): Promise<boolean> {
    await this.hold;
    return super.record(request);
  }
}

const request = (id: string) => snapshotRequest({ id }, {}, { 'content-type': 'application/json' });

/** A request to /webhook as FireTriggers hands it to the intake. */
const requestOf = (id: string): InboundRequest => ({
  id: crypto.randomUUID(),
  watchPath: '/webhook',
  receivedAt: new Date(),
  request: JSON.stringify(request(id)),
  triggers: ['run'],
  runs: [{ trigger: 'run', runId: crypto.randomUUID() }],
  replayOf: null,
});

const make = () => {
  const requests = new HeldStore();
  const queue = new InMemoryTaskQueue();
  const lanes = new InMemoryTriggerLanes();
  const clock = new FixedClock();
  const logger = new RecordingLogger();
  const dispatch = new DispatchTriggerRuns(TRIGGERS, requests, queue, lanes, clock, logger);
  const journals: [InMemoryIntakeJournal, InMemoryIntakeJournal] = [new InMemoryIntakeJournal(), new InMemoryIntakeJournal()];
  const intake = new JournaledIntake(journals, requests, dispatch, logger);
  const fire = new FireTriggers(TRIGGERS, requests, queue, new SequentialIds(), clock, logger, lanes, dispatch, undefined, intake);
  /** The next start's import of what the journals hold (Gateway.start), with a store that may be a new one. */
  const importAtStart = async () => {
    for (const journal of journals)
      await new ImportEarlyIntake(
        journal,
        new InMemoryKeyRepository(),
        new NodeApiKeyCrypto(),
        requests,
        dispatch,
        logger,
        'answered before the last stop',
      ).execute();
    await dispatch.dispatched();
  };
  const runsQueued = () => queue.tasks.map((task) => (task.payload as TriggerRunTask).requestId);
  /** What the service's background pass does (Gateway): resume once the journals' requests are stored. */
  const resumeWithImport = () =>
    intake.resume(async () => {
      for (const journal of journals)
        await new ImportEarlyIntake(journal, new InMemoryKeyRepository(), new NodeApiKeyCrypto(), requests, dispatch, logger, 'left').execute();
    });
  return { requests, queue, journals, intake, fire, logger, importAtStart, runsQueued, resumeWithImport };
};

describe('JournaledIntake: requests made durable in a journal, stored in the database right after', () => {
  it('answers once the request is in the journal, then stores it and queues its run once, and empties the journal', async () => {
    const { fire, intake, requests, journals, runsQueued } = make();
    await intake.resume(async () => undefined);
    const release = requests.held();
    expect(await fire.execute({ watchPath: '/webhook', request: request('a') })).to.deep.equal(['run']);
    // Answered with the request in the journal only.
    expect(journals[0].entries.map((entry) => JSON.parse(entry.request.request).body.id)).to.deep.equal(['a']);
    expect(journals[0].entries[0]).to.not.have.property('keyHash');
    expect(requests.requests.size).to.equal(0);
    release();
    await fire.dispatched();
    const [stored] = [...requests.requests.values()];
    expect(stored).to.include({ watchPath: '/webhook', replayOf: null });
    expect(stored.triggers).to.deep.equal(['run']);
    expect(JSON.parse(stored.request).body).to.deep.equal({ id: 'a' });
    expect(runsQueued()).to.deep.equal([stored.id]);
    expect(journals.map((journal) => journal.entries.length)).to.deep.equal([0, 0]);
  });

  it('takes turns between its two journals: requests arriving while one is stored go to the other, none lost or stored twice', async () => {
    const { fire, intake, requests, journals, runsQueued } = make();
    await intake.resume(async () => undefined);
    const release = requests.held();
    await fire.execute({ watchPath: '/webhook', request: request('first') });
    // The first journal is being stored (held): the next requests go to the second.
    await Promise.all(['b', 'c', 'd'].map((id) => fire.execute({ watchPath: '/webhook', request: request(id) })));
    expect(journals.map((journal) => journal.entries.length)).to.deep.equal([1, 3]);
    requests.hold = undefined;
    release();
    await fire.dispatched();
    const ids = [...requests.requests.values()].map((stored) => JSON.parse(stored.request).body.id);
    expect(ids.sort()).to.deep.equal(['b', 'c', 'd', 'first']);
    expect(runsQueued()).to.have.length(4);
    expect(new Set(runsQueued()).size).to.equal(4);
    expect(journals.map((journal) => journal.entries.length)).to.deep.equal([0, 0]);
  });

  it('stores in the database before the answer what it does not take: not started, a trigger keeping order, a platform’s delivery, a full journal', async () => {
    const { fire, intake, requests, journals } = make();
    await fire.execute({ watchPath: '/webhook', request: request('not-started') });
    expect(requests.requests.size).to.equal(1);
    await intake.resume(async () => undefined);
    await fire.execute({ watchPath: '/create-job', request: request('ordered') });
    await fire.execute({ watchPath: '/webhook', request: request('delivery'), deliveryKey: 'codehost:abc' });
    journals[0].room = 10;
    await fire.execute({ watchPath: '/webhook', request: request('full') });
    expect(requests.requests.size).to.equal(4);
    expect(journals.map((journal) => journal.entries.length)).to.deep.equal([0, 0]);
  });

  it('a store that fails keeps the requests in their journal, takes no more, and the next start stores and runs each once', async () => {
    const { fire, intake, requests, journals, importAtStart, runsQueued, logger } = make();
    await intake.resume(async () => undefined);
    requests.failNext = true;
    expect(await fire.execute({ watchPath: '/webhook', request: request('kept') })).to.deep.equal(['run']);
    await fire.dispatched();
    expect(requests.requests.size).to.equal(0);
    expect(journals[0].entries).to.have.length(1);
    expect(logger.entries.some((entry) => entry.level === 'error' && entry.message.startsWith('storing the requests of the intake journal failed'))).to.equal(
      true,
    );
    // No more taken: the next request is stored before its answer.
    await fire.execute({ watchPath: '/webhook', request: request('direct') });
    expect(journals[0].entries).to.have.length(1);
    await importAtStart();
    expect([...requests.requests.values()].map((stored) => JSON.parse(stored.request).body.id).sort()).to.deep.equal(['direct', 'kept']);
    expect(runsQueued()).to.have.length(2);
    expect(journals[0].entries).to.have.length(0);
  });

  it('a stop before the requests were stored (a crash) leaves them in the journal; the next start stores and queues each once, also after an import cut short', async () => {
    const { fire, intake, requests, journals, importAtStart, runsQueued } = make();
    await intake.resume(async () => undefined);
    requests.hold = new Promise<void>(() => undefined); // never stored: the process dies first
    await Promise.all(['x', 'y'].map((id) => fire.execute({ watchPath: '/webhook', request: request(id) })));
    expect(journals[0].entries).to.have.length(2);
    const [x, y] = journals[0].entries.map((entry) => entry.request.id);
    // The next start, on the same database: x was stored by an import a stop cut short.
    requests.hold = undefined;
    await requests.record(journals[0].entries[0].request);
    await importAtStart();
    expect([...requests.requests.keys()].sort()).to.deep.equal([x, y].sort());
    // y is queued by the import; x, stored undispatched before, by the dispatch's sweep at start: once each.
    expect(runsQueued()).to.deep.equal([y]);
    expect([...requests.pending]).to.deep.equal([x]);
    expect(journals.map((journal) => journal.entries.length)).to.deep.equal([0, 0]);
  });

  it('the delivery log’s readers see a request answered from the journal: a list waits for the requests answered before it', async () => {
    const { fire, intake, requests } = make();
    await intake.resume(async () => undefined);
    const release = requests.held();
    await fire.execute({ watchPath: '/webhook', request: request('listed') });
    const readers = afterJournaledRequests(requests, intake);
    const listed = readers.list({ limit: 10 });
    release();
    expect((await listed).map((stored) => stored.watchPath)).to.deep.equal(['/webhook']);
    const [id] = [...requests.requests.keys()];
    expect((await readers.find(id))?.id).to.equal(id);
  });

  it('an append still under way when its journal’s turn to be stored comes is stored with it, its line kept until it is', async () => {
    const { fire, intake, requests, journals, runsQueued } = make();
    await intake.resume(async () => undefined);
    const releaseStore = requests.held();
    const releaseAppend = journals[0].holdAppends();
    const first = fire.execute({ watchPath: '/webhook', request: request('x') });
    const second = fire.execute({ watchPath: '/webhook', request: request('y') });
    releaseAppend();
    await Promise.all([first, second]);
    releaseStore();
    await fire.dispatched();
    expect([...requests.requests.values()].map((stored) => JSON.parse(stored.request).body.id).sort()).to.deep.equal(['x', 'y']);
    expect(runsQueued()).to.have.length(2);
    expect(journals.map((journal) => journal.entries.length)).to.deep.equal([0, 0]);
  });

  it('storing that fails while the other journal holds requests: stop and readers still end, and the next pass stores each once and takes requests again', async () => {
    const { fire, intake, requests, journals, runsQueued, resumeWithImport } = make();
    await intake.resume(async () => undefined);
    const release = requests.held();
    await fire.execute({ watchPath: '/webhook', request: request('x') });
    // x is being stored (held); y and z go to the other journal meanwhile.
    await fire.execute({ watchPath: '/webhook', request: request('y') });
    await fire.execute({ watchPath: '/webhook', request: request('z') });
    requests.failNext = true;
    release();
    await fire.dispatched();
    await afterJournaledRequests(requests, intake).list({ limit: 10 });
    expect(requests.requests.size).to.equal(0);
    expect(journals.map((journal) => journal.entries.length)).to.deep.equal([1, 2]);
    expect(intake.taking).to.equal(false);
    // The next background pass: all three stored and queued once, and the intake takes requests again.
    requests.hold = undefined;
    await resumeWithImport();
    await fire.dispatched();
    expect(requests.requests.size).to.equal(3);
    expect(new Set(runsQueued()).size).to.equal(3);
    expect(runsQueued()).to.have.length(3);
    expect(intake.taking).to.equal(true);
    await fire.execute({ watchPath: '/webhook', request: request('w') });
    expect(journals[0].entries.length + journals[1].entries.length).to.equal(1);
    await intake.stop();
    expect(requests.requests.size).to.equal(4);
  });

  it('a request just answered is found, and can be replayed, though it is still being stored', async () => {
    const { fire, intake, requests, journals } = make();
    await intake.resume(async () => undefined);
    const release = requests.held();
    await fire.execute({ watchPath: '/webhook', request: request('r') });
    const id = journals[0].entries[0].request.id;
    const found = afterJournaledRequests(requests, intake).find(id);
    const replayed = fire.replay(id);
    release();
    expect((await found)?.id).to.equal(id);
    expect((await replayed).fired).to.deep.equal(['run']);
  });

  it('resume stores the leftovers once for calls at the same time, and a stop meanwhile keeps it from taking requests', async () => {
    const { fire, intake, journals } = make();
    let calls = 0;
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const storeLeftovers = async () => {
      calls++;
      await held;
    };
    const both = Promise.all([intake.resume(storeLeftovers), intake.resume(storeLeftovers)]);
    const stopped = intake.stop();
    release();
    await Promise.all([both, stopped]);
    expect(calls).to.equal(1);
    expect(intake.taking).to.equal(false);
    await fire.execute({ watchPath: '/webhook', request: request('after-stop') });
    expect(journals.map((journal) => journal.entries.length)).to.deep.equal([0, 0]);
  });

  it('stop takes no more and resolves once every request taken is stored', async () => {
    const { fire, intake, requests, journals } = make();
    await intake.resume(async () => undefined);
    const release = requests.held();
    await fire.execute({ watchPath: '/webhook', request: request('before-stop') });
    const stopped = intake.stop();
    // Not taken once stopping: stored before its answer (which waits for the store, held too).
    const after = fire.execute({ watchPath: '/webhook', request: request('after-stop') });
    release();
    await Promise.all([stopped, after]);
    expect(requests.requests.size).to.equal(2);
    expect(journals.map((journal) => journal.entries.length)).to.deep.equal([0, 0]);
    expect(journals[1].clears).to.equal(0);
  });

  it('a moment of full disk (a journal write refused) stores before the answer until the next pass, which takes requests into the journal again', async () => {
    const requests = new InMemoryInboundRequestStore();
    const logger = new RecordingLogger();
    const queue = new InMemoryTaskQueue();
    const dispatch = new DispatchTriggerRuns(TRIGGERS, requests, queue, new InMemoryTriggerLanes(), new FixedClock(), logger);
    const dir = join(await tempDir('journaled-intake-enospc'), 'intake');
    const disk = fillingDisk();
    const files = [join(dir, 'requests-1.jsonl'), join(dir, 'requests-2.jsonl')] as const;
    const journals: [FileIntakeJournal, FileIntakeJournal] = [
      new FileIntakeJournal(files[0], undefined, disk.fs),
      new FileIntakeJournal(files[1], undefined, disk.fs),
    ];
    const intake = new JournaledIntake(journals, requests, dispatch, logger);
    const fire = new FireTriggers(
      TRIGGERS,
      requests,
      queue,
      new SequentialIds(),
      new FixedClock(),
      logger,
      new InMemoryTriggerLanes(),
      dispatch,
      undefined,
      intake,
    );
    // The service's background pass (Gateway): the journals set aside and opened anew.
    const pass = () =>
      intake.resume(async () => {
        for (const [i, journal] of journals.entries()) {
          await journal.close();
          await setAsideJournal(files[i]);
        }
        for (const journal of journals) await journal.open();
      });
    try {
      await pass();
      expect(await intake.take(requestOf('before'))).to.equal(true);
      // The disk fills up: the request is refused by the journal (FireTriggers stores it before its answer).
      disk.full = true;
      await fire.execute({ watchPath: '/webhook', request: request('refused') });
      expect(intake.taking).to.equal(false);
      expect(logger.entries.filter((entry) => entry.message.startsWith('the intake journal failed'))).to.have.length(1);
      // Room again; until the next pass, requests are stored before their answer.
      disk.full = false;
      expect(await intake.take(requestOf('between'))).to.equal(false);
      await pass();
      expect(intake.taking).to.equal(true);
      const later = await Promise.all(['b', 'c', 'd'].map((id) => intake.take(requestOf(id))));
      expect(later, 'requests taken by the journal once the disk has room again').to.deep.equal([true, true, true]);
      await intake.imported();
      // Each request stored once: the one taken before the failure too, without waiting for a pass.
      expect([...requests.requests.values()].map((stored) => JSON.parse(stored.request).body.id).sort()).to.deep.equal(['b', 'before', 'c', 'd', 'refused']);
    } finally {
      await intake.stop();
      for (const journal of journals) await journal.close();
    }
  });
});
