import { expect } from 'chai';
import {
  BUSY_ARRIVALS,
  DispatchTriggerRuns,
  LEFT_BEHIND_MS,
  MAX_PENDING,
  PASS_GAP_MS,
  PASS_SIZE,
  SWEEP_INTERVAL_MS,
  TRIGGER_RUN_ORDERED_QUEUE,
  TRIGGER_RUN_QUEUE,
  type TriggerRunTask,
} from '../../../../src/application/triggers/dispatch-trigger-runs.js';
import { validateTriggers } from '../../../../src/domain/triggers/validate-triggers.js';
import type { Headroom } from '../../../../src/ports/headroom.js';
import type { InboundRequest } from '../../../../src/ports/inbound-request-store.js';
import { triggerCatalog } from '../../../../src/container/trigger-catalog.js';
import { FixedClock } from '../../../fakes/fixed-clock.js';
import { InMemoryInboundRequestStore } from '../../../fakes/in-memory-inbound-request-store.js';
import { InMemoryTaskQueue, InMemoryTaskStore } from '../../../fakes/in-memory-task-queue.js';
import { InMemoryTriggerLanes } from '../../../fakes/in-memory-trigger-lanes.js';
import { ManualTimer } from '../../../fakes/manual-timer.js';
import { RecordingLogger } from '../../../fakes/recording-logger.js';
import { waitFor } from '../../../support/http.js';

const { triggers } = validateTriggers(
  [
    { name: 'build', watch_path: '/webhook', enabled: true, actions: [{ type: 'command', command: 'true' }] },
    { name: 'pair', watch_path: '/webhook', enabled: true, concurrency: 2, actions: [{ type: 'command', command: 'true' }] },
  ],
  'test',
  triggerCatalog(),
);

/** A Headroom with no room until `open()`: what a busy service is to its background work. */
class GatedHeadroom implements Headroom {
  waiting = 0;
  #release: Array<() => void> = [];
  #open = false;
  async wait(): Promise<void> {
    if (this.#open) return;
    this.waiting++;
    await new Promise<void>((resolve) => this.#release.push(resolve));
    this.waiting--;
  }
  /** Lets one waiter through. */
  one(): void {
    this.#release.shift()?.();
  }
  open(): void {
    this.#open = true;
    for (const release of this.#release.splice(0)) release();
  }
}

describe('DispatchTriggerRuns', () => {
  const make = (options: { headroom?: Headroom; timer?: ManualTimer; store?: InMemoryTaskStore; requests?: InMemoryInboundRequestStore } = {}) => {
    const queue = new InMemoryTaskQueue(options.store);
    const requests = options.requests ?? new InMemoryInboundRequestStore();
    const clock = new FixedClock();
    const logger = new RecordingLogger();
    const dispatch = new DispatchTriggerRuns(triggers, requests, queue, new InMemoryTriggerLanes(), clock, logger, options.headroom, options.timer);
    let n = 0;
    /** Stores a request with runs (as FireTriggers does) and returns it. */
    const store = async (names: readonly string[] = ['build'], receivedAt = clock.now()): Promise<InboundRequest> => {
      n++;
      const request: InboundRequest = {
        id: `request-${n}`,
        watchPath: '/webhook',
        receivedAt,
        request: '{}',
        triggers: [...names],
        runs: names.map((trigger) => ({ trigger, runId: queue.newTaskId() })),
        replayOf: null,
      };
      await requests.record(request);
      return request;
    };
    const queued = () => queue.tasks.map((task) => task.payload as TriggerRunTask);
    return { dispatch, queue, requests, clock, logger, store, queued };
  };

  it('queues the runs of a recorded request, each task carrying its run, and marks the request dispatched', async () => {
    const { dispatch, requests, store, queued, queue } = make();
    const request = await store(['build', 'pair']);
    dispatch.recorded(request);
    await dispatch.dispatched();
    expect(queued()).to.deep.equal(
      request.runs.map(({ trigger, runId }) => ({
        runId,
        trigger,
        watchPath: '/webhook',
        firedAt: request.receivedAt.toISOString(),
        requestId: request.id,
        // The types of its trigger's actions as queued: what a run of a trigger removed before it ran records.
        actionTypes: ['command'],
        // A run in a lane names it (see relane).
        ...(trigger === 'pair' ? { lane: 0 } : {}),
      })),
    );
    expect(queue.tasks.map((task) => task.queue)).to.deep.equal([TRIGGER_RUN_QUEUE, TRIGGER_RUN_ORDERED_QUEUE]);
    expect(await requests.undispatched(new Date(8.64e15), 10)).to.deep.equal([]);
  });

  it('queues nothing while the service has no room; then the requests that waited go in passes of at most PASS_SIZE, in the order stored', async () => {
    const headroom = new GatedHeadroom();
    const { dispatch, store, queued } = make({ headroom });
    const stored: InboundRequest[] = [];
    for (let i = 0; i < PASS_SIZE + 3; i++) stored.push(await store());
    for (const request of stored) dispatch.recorded(request);
    await waitFor(() => headroom.waiting === 1, 2000, 'the first pass waits for room');
    expect(queued()).to.deep.equal([]);
    headroom.one();
    await waitFor(() => headroom.waiting === 1 && queued().length === PASS_SIZE, 2000, 'one pass, then the next waits');
    headroom.one();
    await dispatch.dispatched();
    expect(queued().map((task) => task.requestId)).to.deep.equal(stored.map((request) => request.id));
  });

  it('at start, queues the runs of requests a stop left stored but undispatched, once even when two replicas sweep them', async () => {
    const tasks = new InMemoryTaskStore();
    const requests = new InMemoryInboundRequestStore();
    const first = make({ store: tasks, requests });
    const second = make({ store: tasks, requests });
    const left = [await first.store(), await first.store(['build', 'pair'])];
    first.clock.advance(1);
    second.clock.advance(1);
    first.dispatch.start();
    second.dispatch.start();
    await waitFor(async () => (await requests.undispatched(new Date(8.64e15), 10)).length === 0, 2000, 'both swept');
    await first.dispatch.dispatched();
    await second.dispatch.dispatched();
    const runs = tasks.tasks.map((task) => (task.payload as TriggerRunTask).runId).sort();
    expect(runs).to.deep.equal(left.flatMap((request) => request.runs.map((run) => run.runId)).sort());
    await first.dispatch.stop();
    await second.dispatch.stop();
  });

  it('sweeps every SWEEP_INTERVAL_MS for requests undispatched LEFT_BEHIND_MS, leaving the newer ones to the replica that stored them', async () => {
    const timer = new ManualTimer();
    const { dispatch, store, clock, queued } = make({ timer });
    dispatch.start();
    expect(timer.waits).to.deep.equal([SWEEP_INTERVAL_MS]);
    const old = await store();
    clock.advance(LEFT_BEHIND_MS);
    const recent = await store();
    clock.advance(1);
    timer.fire();
    await waitFor(() => queued().length === 1, 2000, 'the left-behind request queued');
    expect(queued()[0].requestId).to.equal(old.id);
    expect(queued().map((task) => task.requestId)).to.not.include(recent.id);
    expect(timer.pending).to.equal(true);
    await dispatch.stop();
    expect(timer.pending, 'no sweep after the stop').to.equal(false);
  });

  it('at a graceful stop queues what was recorded, then takes no more: a request recorded later waits, stored, for the next start', async () => {
    const headroom = new GatedHeadroom();
    const { dispatch, store, queued, requests } = make({ headroom });
    const before = await store();
    dispatch.recorded(before);
    const stopping = dispatch.stop();
    headroom.open();
    await stopping;
    expect(queued().map((task) => task.requestId)).to.deep.equal([before.id]);
    const after = await store();
    dispatch.recorded(after);
    await dispatch.dispatched();
    expect(queued()).to.have.length(1);
    expect((await requests.undispatched(new Date(8.64e15), 10)).map((request) => request.id)).to.deep.equal([after.id]);
  });

  it('leaves a request whose runs cannot be queued stored and undispatched, saying so; the next sweep queues the rest once', async () => {
    const timer = new ManualTimer();
    const { dispatch, store, queue, queued, logger, clock, requests } = make({ timer });
    const request = await store(['build', 'pair']);
    queue.failNext = true;
    dispatch.recorded(request);
    await dispatch.dispatched();
    expect(queued().map((task) => task.trigger)).to.deep.equal(['pair']);
    expect(logger.entries.some((entry) => entry.level === 'warn' && /queueing trigger runs failed/.test(entry.message))).to.equal(true);
    dispatch.start();
    clock.advance(LEFT_BEHIND_MS + 1);
    timer.fire();
    await waitFor(async () => (await requests.undispatched(new Date(8.64e15), 10)).length === 0, 2000, 'swept');
    await dispatch.dispatched();
    expect(
      queued()
        .map((task) => task.trigger)
        .sort(),
    ).to.deep.equal(['build', 'pair']);
    await dispatch.stop();
  });

  it('deals the runs of a trigger with concurrency to its lanes in the order stored, and queues a run of a trigger no longer configured on the plain queue', async () => {
    const { dispatch, store, queue } = make();
    const stored = [await store(['pair']), await store(['pair']), await store(['pair']), await store(['gone'])];
    for (const request of stored) dispatch.recorded(request);
    await dispatch.dispatched();
    expect(queue.tasks.map((task) => `${task.queue} ${task.group ?? '-'}`)).to.deep.equal([
      `${TRIGGER_RUN_ORDERED_QUEUE} pair#0`,
      `${TRIGGER_RUN_ORDERED_QUEUE} pair#1`,
      `${TRIGGER_RUN_ORDERED_QUEUE} pair#0`,
      `${TRIGGER_RUN_QUEUE} -`,
    ]);
  });

  it('while requests come in fast, spaces its passes PASS_GAP_MS apart; a backlog with nothing coming in goes pass after pass', async () => {
    const timer = new ManualTimer();
    const { dispatch, store, queued, requests, clock } = make({ timer });
    const fast: InboundRequest[] = [];
    for (let i = 0; i < PASS_SIZE + BUSY_ARRIVALS; i++) fast.push(await store());
    for (const request of fast) dispatch.recorded(request);
    await waitFor(() => timer.pending, 2000, 'the gap after the first pass');
    expect(queued()).to.have.length(PASS_SIZE);
    expect(timer.waits).to.deep.equal([PASS_GAP_MS]);
    timer.fire();
    await dispatch.dispatched();
    expect(queued()).to.have.length(PASS_SIZE + BUSY_ARRIVALS);
    // Left by a stop: read by the sweep, nothing coming in: no gap between its passes.
    for (let i = 0; i < PASS_SIZE + 1; i++) await store();
    clock.advance(1);
    timer.waits.length = 0;
    dispatch.start();
    await waitFor(async () => (await requests.undispatched(new Date(8.64e15), 10)).length === 0, 2000, 'the backlog queued');
    await dispatch.dispatched();
    expect(timer.waits).to.deep.equal([SWEEP_INTERVAL_MS]);
    expect(queued()).to.have.length(2 * PASS_SIZE + BUSY_ARRIVALS + 1);
    await dispatch.stop();
  });

  it('keeps at most MAX_PENDING requests in memory; the others wait stored and are read back by a sweep once the memory is empty', async () => {
    const headroom = new GatedHeadroom();
    const { dispatch, store, queued, requests } = make({ headroom });
    const many: InboundRequest[] = [];
    for (let i = 0; i < MAX_PENDING + 2; i++) many.push(await store());
    for (const request of many) dispatch.recorded(request);
    headroom.open();
    await waitFor(() => queued().length >= MAX_PENDING + 2, 20_000, 'every request queued');
    await dispatch.dispatched();
    expect(await requests.undispatched(new Date(8.64e15), 10)).to.deep.equal([]);
    expect(new Set(queued().map((task) => task.requestId)).size).to.equal(MAX_PENDING + 2);
    expect(queued()).to.have.length(MAX_PENDING + 2);
  });

  it('queues a replay at once, without waiting for room', async () => {
    const headroom = new GatedHeadroom();
    const { dispatch, store, queued } = make({ headroom });
    const request = await store();
    await dispatch.now([request]);
    expect(queued().map((task) => task.requestId)).to.deep.equal([request.id]);
    expect(headroom.waiting).to.equal(0);
  });
});
