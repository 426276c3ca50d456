import { expect } from 'chai';
import { headAndTail } from '../../../../src/domain/text/cut-text.js';
import { FireTriggers, TRIGGER_RUN_ORDERED_QUEUE, TRIGGER_RUN_QUEUE, type TriggerRunTask } from '../../../../src/application/triggers/fire-triggers.js';
import {
  INTERRUPTED,
  RECORDED_OUTPUT,
  RELOADED_UNDER_WAY,
  REQUEST_POLL_MS,
  REQUEST_WAIT_MS,
  noLongerWatches,
  RunTrigger,
  TRIGGER_DISABLED,
  TRIGGER_REMOVED,
  WHEN_NO_LONGER_MATCHES,
} from '../../../../src/application/triggers/run-trigger.js';
import { endpointPaths } from '../../../../src/container/bindings/delivery-bindings.js';
import type { TriggerSource } from '../../../../src/application/triggers/trigger-source.js';
import type { Timer } from '../../../../src/ports/timer.js';
import { InMemoryStartMarks } from '../../../fakes/in-memory-start-marks.js';
import { DomainError } from '../../../../src/domain/errors/domain-error.js';
import { parseExactJson } from '../../../../src/domain/templates/exact-json.js';
import { snapshotRequest } from '../../../../src/domain/templates/request-snapshot.js';
import { untrustedJobNotice } from '../../../../src/domain/templates/render-prompt.js';
import { validateTriggers } from '../../../../src/domain/triggers/validate-triggers.js';
import type { HttpForwarder, OutboundRequest, OutboundResult } from '../../../../src/ports/http-forwarder.js';
import type { JobLaunch, JobLauncher } from '../../../../src/ports/job-launcher.js';
import type { ActionRun } from '../../../../src/domain/triggers/action-run.js';
import type { Trigger } from '../../../../src/domain/triggers/trigger.js';
import { actionFingerprint } from '../../../../src/domain/triggers/action-fingerprint.js';
import type { ShellExecutor, ShellOptions, ShellRun } from '../../../../src/ports/shell-executor.js';
import { FixedClock } from '../../../fakes/fixed-clock.js';
import { InMemoryActionRunRepository } from '../../../fakes/in-memory-action-run-repository.js';
import { InMemoryInboundRequestStore } from '../../../fakes/in-memory-inbound-request-store.js';
import { InMemoryTaskQueue } from '../../../fakes/in-memory-task-queue.js';
import { RecordingLogger } from '../../../fakes/recording-logger.js';
import { PinoLogger, createPino } from '../../../../src/adapters/logging/pino-logger.js';
import { SequentialIds } from '../../../fakes/sequential-ids.js';
import { triggerCatalog } from '../../../../src/container/trigger-catalog.js';
import { InMemoryTriggerLanes } from '../../../fakes/in-memory-trigger-lanes.js';
import { waitFor } from '../../../support/http.js';

class ScriptedShell implements ShellExecutor {
  readonly commands: string[] = [];
  readonly envs: Array<Readonly<Record<string, string>>> = [];
  readonly startMarks: Array<string | undefined> = [];
  constructor(
    private readonly exitCodes: number[] = [],
    private readonly output = 'out',
    /** Where the shell makes the start marks it is given, as the real one does before the command. */
    private readonly marks?: InMemoryStartMarks,
  ) {}
  async run(command: string, options: ShellOptions): Promise<ShellRun> {
    this.commands.push(`${options.cwd}$ ${command} (${options.timeoutMs})`);
    this.envs.push(options.env);
    this.startMarks.push(options.startMark);
    if (options.startMark !== undefined) this.marks?.touch(options.startMark, options.startAttempt);
    // The ends of a long output, as the port says the executor keeps them when asked.
    const output = typeof options.keep === 'object' ? headAndTail(this.output, options.keep.head + options.keep.tail, options.keep.head) : this.output;
    return { exitCode: this.exitCodes.shift() ?? 0, timedOut: false, aborted: false, durationMs: 1, output };
  }
}

/** A shell whose commands run until their signal aborts, answering then as the real one does (killed: `aborted`). */
class HangingShell implements ShellExecutor {
  readonly commands: string[] = [];
  async run(command: string, options: ShellOptions): Promise<ShellRun> {
    this.commands.push(command);
    const signal = options.signal;
    if (signal === undefined) throw new Error('a command that never ends was run without a signal');
    await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
    return { exitCode: null, timedOut: false, aborted: true, durationMs: 1, output: 'half done' };
  }
}

/** A webhook peer that answers only when told to stop, as the real forwarder does when its signal aborts. */
class HangingForwarder implements HttpForwarder {
  readonly sent: OutboundRequest[] = [];
  async send(request: OutboundRequest, signal?: AbortSignal): Promise<OutboundResult> {
    this.sent.push(request);
    if (signal === undefined) throw new Error('a webhook that never answers was sent without a signal');
    await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
    return { ok: false, status: null, attempts: 1, error: 'stopped before an answer', aborted: true };
  }
}

/** An action run store that refuses every outcome (not the `running` mark), as a database refusing a row would. */
class FailingActionRunRepository extends InMemoryActionRunRepository {
  override async save(run: ActionRun): Promise<void> {
    if (run.status === 'running') return super.save(run);
    throw new Error('invalid input syntax for type json');
  }
}

/** An action run store that cannot be reached: every save fails. */
class UnreachableActionRunRepository extends InMemoryActionRunRepository {
  override async save(_run: ActionRun): Promise<void> {
    throw new Error('connect ECONNREFUSED');
  }
}

class RecordingForwarder implements HttpForwarder {
  readonly sent: OutboundRequest[] = [];
  constructor(private readonly result: OutboundResult = { ok: true, status: 200, attempts: 1 }) {}
  async send(request: OutboundRequest): Promise<OutboundResult> {
    this.sent.push(request);
    return this.result;
  }
}

class RecordingJobs implements JobLauncher {
  readonly launched: JobLaunch[] = [];
  constructor(private readonly available = true) {}
  async launch(request: JobLaunch): Promise<string> {
    if (!this.available) throw new DomainError('not_configured', 'Jobs are not configured');
    this.launched.push(request);
    return 'job-1';
  }
}

const { triggers } = validateTriggers(
  [
    {
      name: 'build',
      watch_path: '/webhook',
      enabled: true,
      actions: [
        { type: 'command', command: 'git pull origin -- {{body.branch}}' },
        { type: 'command', command: 'make', timeout: 5, retries: 1 },
        { type: 'webhook', url: 'https://hooks.test/x', headers: { 'x-token': 't' }, vars: { env: 'prod' } },
        { type: 'webhook', url: 'https://hooks.test/y', method: 'GET', vars: { ignored: true } },
        { type: 'agent', job: 'Review {{body.branch}}', llm_provider: 'openai' },
      ],
    },
    { name: 'notify', watch_path: '/webhook', enabled: true, actions: [{ type: 'command', command: 'true' }] },
    { name: 'off', watch_path: '/webhook', enabled: false, actions: [{ type: 'command', command: 'false' }] },
  ],
  'test',
  triggerCatalog(),
);

const request = snapshotRequest({ branch: 'main; rm -rf /' }, {}, { 'x-api-key': 'agw_x', 'x-event': 'push' });

/** Fires, then waits until the runs are queued (they are queued after the caller's answer). */
const executed = async (fire: FireTriggers, input: Parameters<FireTriggers['execute']>[0]): Promise<string[]> => {
  const names = await fire.execute(input);
  await fire.dispatched();
  return names;
};

describe('FireTriggers', () => {
  const make = () => {
    const queue = new InMemoryTaskQueue();
    const requests = new InMemoryInboundRequestStore();
    const clock = new FixedClock();
    const fire = new FireTriggers(triggers, requests, queue, new SequentialIds(), clock, new RecordingLogger(), new InMemoryTriggerLanes());
    return { fire, queue, requests, clock };
  };
  const taskAt = (queue: InMemoryTaskQueue, index: number) => queue.tasks[index].payload as TriggerRunTask;

  it('stores one task per enabled matching trigger and returns their names in file order', async () => {
    const { fire, queue } = make();
    expect(await executed(fire, { watchPath: '/webhook', request })).to.deep.equal(['build', 'notify']);
    expect(queue.tasks.map((t) => [t.queue, (t.payload as TriggerRunTask).trigger])).to.deep.equal([
      [TRIGGER_RUN_QUEUE, 'build'],
      [TRIGGER_RUN_QUEUE, 'notify'],
    ]);
  });

  it('fires only the triggers whose when the request passes, and stores nothing when none does', async () => {
    const { triggers: filtered } = validateTriggers(
      [
        {
          name: 'main',
          watch_path: '/webhook',
          enabled: true,
          when: { 'body.ref': { equals: 'refs/heads/main' } },
          actions: [{ type: 'command', command: 'true' }],
        },
        { name: 'any', watch_path: '/webhook', enabled: true, when: { 'headers.x-event': { in: ['push'] } }, actions: [{ type: 'command', command: 'true' }] },
      ],
      'test',
      triggerCatalog(),
    );
    const queue = new InMemoryTaskQueue();
    const requests = new InMemoryInboundRequestStore();
    const fire = new FireTriggers(filtered, requests, queue, new SequentialIds(), new FixedClock(), new RecordingLogger(), new InMemoryTriggerLanes());
    expect(await executed(fire, { watchPath: '/webhook', request: snapshotRequest({ ref: 'refs/heads/dev' }, {}, { 'x-event': 'push' }) })).to.deep.equal([
      'any',
    ]);
    expect(queue.tasks.map((t) => (t.payload as TriggerRunTask).trigger)).to.deep.equal(['any']);
    expect([...requests.requests.values()].map((r) => r.triggers)).to.deep.equal([['any']]);
    expect(await executed(fire, { watchPath: '/webhook', request: snapshotRequest({ ref: 'refs/heads/dev' }, {}, { 'x-event': 'issues' }) })).to.deep.equal([]);
    expect(queue.tasks).to.have.length(1);
    expect([...requests.requests.values()]).to.have.length(1);
  });

  it('stores the request once, with its watch path, time and fired triggers; each task refers to it by id', async () => {
    const { fire, queue, requests } = make();
    await executed(fire, { watchPath: '/webhook', request });
    expect([...requests.requests.values()]).to.have.length(1);
    const [stored] = requests.requests.values();
    expect(stored).to.include({ watchPath: '/webhook' });
    expect(stored.triggers).to.deep.equal(['build', 'notify']);
    expect(stored.receivedAt.toISOString()).to.equal(new FixedClock().now().toISOString());
    expect(JSON.parse(stored.request).headers).to.deep.equal({ 'x-event': 'push' });
    for (const index of [0, 1]) {
      expect(taskAt(queue, index).requestId).to.equal(stored.id);
      expect(taskAt(queue, index)).to.not.have.property('request');
    }
  });

  it('keeps the request exactly, NUL characters, lone surrogates and key order included', async () => {
    const { fire, requests } = make();
    const body = { z: 'a\u0000b', a: '\ud800', m: [1] };
    await executed(fire, { watchPath: '/webhook', request: snapshotRequest(body, {}, {}) });
    const [stored] = requests.requests.values();
    const storedBody = (JSON.parse(stored.request) as { body: object }).body;
    expect(storedBody).to.deep.equal(body);
    expect(Object.keys(storedBody)).to.deep.equal(['z', 'a', 'm']);
  });

  it('keeps a request that fires nothing when asked to (code-host and chat deliveries), queueing nothing', async () => {
    const { fire, queue, requests } = make();
    expect(await executed(fire, { watchPath: '/ping', request, keep: true })).to.deep.equal([]);
    expect(queue.tasks).to.deep.equal([]);
    const [stored] = requests.requests.values();
    expect(stored).to.deep.include({ watchPath: '/ping', triggers: [], runs: [], replayOf: null });
    expect(JSON.parse(stored.request).headers).to.deep.equal({ 'x-event': 'push' });
  });

  it('stores nothing for a path no trigger watches', async () => {
    const { fire, queue, requests } = make();
    expect(await executed(fire, { watchPath: '/ping', request })).to.deep.equal([]);
    expect(queue.tasks).to.deep.equal([]);
    expect(requests.requests.size).to.equal(0);
  });

  it('answers once the request is stored: runs that cannot be queued yet leave it stored, undispatched, and a sweep queues them', async () => {
    const { fire, queue, requests, clock } = make();
    queue.failNext = true;
    expect(await executed(fire, { watchPath: '/webhook', request })).to.deep.equal(['build', 'notify']);
    const [stored] = requests.requests.values();
    expect((await requests.undispatched(new Date(8.64e15), 10)).map((one) => one.id)).to.deep.equal([stored.id]);
    // One of the two runs was queued before the failure; the sweep queues the other, and that one once.
    clock.advance(1); // the sweep at start takes what was stored before it
    fire.dispatch.start();
    await waitFor(async () => (await requests.undispatched(new Date(8.64e15), 10)).length === 0, 5000, 'the sweep dispatched the request');
    await fire.dispatched();
    expect(queue.tasks.map((task) => (task.payload as TriggerRunTask).trigger).sort()).to.deep.equal(['build', 'notify']);
    await fire.dispatch.stop();
  });

  it('fails when the request cannot be stored, and queues nothing: the caller sends it again', async () => {
    const { fire, queue, requests } = make();
    requests.failNext = true;
    const error = await fire.execute({ watchPath: '/webhook', request }).catch((e: Error) => e);
    expect(error).to.be.instanceOf(Error);
    await fire.dispatched();
    expect(queue.tasks).to.deep.equal([]);
    expect(requests.requests.size).to.equal(0);
  });

  it('queues the runs once their request is stored, not before: a task never runs ahead of its request', async () => {
    const { fire, queue, requests } = make();
    // Whether the request's write had ended when each task was queued, as the queue saw it: a
    // task queued before, whenever that was, is caught. The write takes until the test lets it
    // end (a turn of the event loop later), so that a task queued early has the time to be.
    let stored = false;
    const storedWhenQueued: boolean[] = [];
    let commit!: () => void;
    const written = new Promise<void>((resolve) => (commit = resolve));
    const record = requests.record.bind(requests);
    requests.record = async (request) => {
      await written;
      const recorded = await record(request);
      stored = true;
      return recorded;
    };
    const enqueue = queue.enqueue.bind(queue);
    queue.enqueue = async (...args) => {
      storedWhenQueued.push(stored);
      return enqueue(...args);
    };
    const firing = fire.execute({ watchPath: '/webhook', request });
    setImmediate(commit);
    await firing;
    await fire.dispatched();
    expect(storedWhenQueued, 'the request stored when each run was queued').to.deep.equal([true, true]);
    expect(queue.tasks).to.have.length(2);
    expect(await requests.undispatched(new Date(8.64e15), 10)).to.deep.equal([]);
  });

  it('names the run each fired trigger started in the stored request, the same run ids the tasks carry', async () => {
    const { fire, queue, requests } = make();
    await executed(fire, { watchPath: '/webhook', request });
    const [stored] = requests.requests.values();
    expect(stored.runs).to.deep.equal([
      { trigger: 'build', runId: taskAt(queue, 0).runId },
      { trigger: 'notify', runId: taskAt(queue, 1).runId },
    ]);
    expect(stored.replayOf).to.equal(null);
  });

  describe('with `concurrency`', () => {
    const limited = validateTriggers(
      [
        { name: 'single', watch_path: '/webhook', enabled: true, concurrency: 1, actions: [{ type: 'command', command: 'true' }] },
        { name: 'pair', watch_path: '/webhook', enabled: true, concurrency: 2, actions: [{ type: 'command', command: 'true' }] },
        { name: 'free', watch_path: '/webhook', enabled: true, actions: [{ type: 'command', command: 'true' }] },
      ],
      'test',
      triggerCatalog(),
    ).triggers;

    it("queues a limited trigger's runs on the ordered queue, dealt round robin to its lanes; others as before", async () => {
      const queue = new InMemoryTaskQueue();
      const lanes = new InMemoryTriggerLanes();
      const fire = new FireTriggers(limited, new InMemoryInboundRequestStore(), queue, new SequentialIds(), new FixedClock(), new RecordingLogger(), lanes);
      for (let i = 0; i < 3; i++) await executed(fire, { watchPath: '/webhook', request });
      const placed = (trigger: string) =>
        queue.tasks.filter((task) => (task.payload as TriggerRunTask).trigger === trigger).map((task) => `${task.queue} ${task.group ?? '-'}`);
      expect(placed('single')).to.deep.equal(Array(3).fill('trigger-run-ordered single#0'));
      expect(placed('pair')).to.deep.equal(['trigger-run-ordered pair#0', 'trigger-run-ordered pair#1', 'trigger-run-ordered pair#0']);
      expect(placed('free')).to.deep.equal(Array(3).fill('trigger-run -'));
      // One lane needs no counter.
      expect([...lanes.counters.keys()]).to.deep.equal(['pair']);
    });
  });

  it("queues a request's runs before answering when one of its triggers has `concurrency`: lanes keep firing order across replicas", async () => {
    const queue = new InMemoryTaskQueue();
    const requests = new InMemoryInboundRequestStore();
    const lanes = validateTriggers(
      [{ name: 'single', watch_path: '/webhook', enabled: true, concurrency: 1, actions: [{ type: 'command', command: 'true' }] }],
      'test',
      triggerCatalog(),
    ).triggers;
    const fire = new FireTriggers(lanes, requests, queue, new SequentialIds(), new FixedClock(), new RecordingLogger(), new InMemoryTriggerLanes());
    await fire.execute({ watchPath: '/webhook', request });
    // no wait for the dispatch: queued and marked already when the caller is answered
    expect(queue.tasks.map((task) => `${task.queue} ${task.group}`)).to.deep.equal(['trigger-run-ordered single#0']);
    expect(await requests.undispatched(new Date(8.64e15), 10)).to.deep.equal([]);
  });

  describe('#replay', () => {
    it("fires the stored request's triggers again with the request text byte for byte, recorded as a replay of it", async () => {
      const { fire, queue, requests } = make();
      const body = { z: 'a\u0000b', a: '\ud800', branch: 'main; rm -rf /' };
      await executed(fire, { watchPath: '/webhook', request: snapshotRequest(body, {}, {}) });
      const [original] = requests.requests.values();
      const outcome = await fire.replay(original.id);
      expect(outcome).to.deep.include({ fired: ['build', 'notify'], skipped: [] });
      const replay = requests.requests.get(outcome.requestId!)!;
      expect(replay).to.include({ watchPath: '/webhook', replayOf: original.id, request: original.request });
      expect(replay.triggers).to.deep.equal(['build', 'notify']);
      expect(queue.tasks.slice(2).map((task) => (task.payload as TriggerRunTask).requestId)).to.deep.equal([replay.id, replay.id]);
      expect(replay.runs.map((run) => run.runId)).to.deep.equal(queue.tasks.slice(2).map((task) => (task.payload as TriggerRunTask).runId));
      expect(new Set([...original.runs, ...replay.runs].map((run) => run.runId)).size).to.equal(4);
    });

    it('skips, and names, triggers that are no longer configured or are disabled now', async () => {
      const { fire, queue, requests } = make();
      const id = '20000000-0000-4000-8000-0000000000aa';
      await requests.record({
        id,
        watchPath: '/webhook',
        receivedAt: new Date(),
        request: '{}',
        triggers: ['gone', 'off', 'notify'],
        runs: [],
        replayOf: null,
      });
      const outcome = await fire.replay(id);
      expect(outcome).to.deep.include({
        fired: ['notify'],
        skipped: ['gone', 'off'],
        skippedWhy: [
          { trigger: 'gone', reason: 'disabled or removed' },
          { trigger: 'off', reason: 'disabled or removed' },
        ],
      });
      expect(queue.tasks.map((task) => (task.payload as TriggerRunTask).trigger)).to.deep.equal(['notify']);
    });

    /** Triggers as a reload would leave them: `plain` and `any` fire for `{"kind":"plain"}` at /webhook until `now` is changed. */
    const reloadable = () => {
      const configure = (plain: Record<string, unknown>) =>
        validateTriggers(
          [
            {
              name: 'plain',
              watch_path: '/webhook',
              enabled: true,
              when: { 'body.kind': { equals: 'plain' } },
              actions: [{ type: 'command', command: 'true' }],
              ...plain,
            },
            { name: 'any', watch_path: '/webhook', enabled: true, actions: [{ type: 'command', command: 'true' }] },
          ],
          'test',
          triggerCatalog(),
        ).triggers;
      let now = configure({});
      const queue = new InMemoryTaskQueue();
      const requests = new InMemoryInboundRequestStore();
      const source = { current: () => now };
      const fire = new FireTriggers(source, requests, queue, new SequentialIds(), new FixedClock(), new RecordingLogger(), new InMemoryTriggerLanes());
      const reload = (plain: Record<string, unknown>) => {
        now = configure(plain);
      };
      return { fire, queue, requests, reload };
    };
    const firedOnce = async (fire: FireTriggers, requests: InMemoryInboundRequestStore) => {
      expect(await executed(fire, { watchPath: '/webhook', request: snapshotRequest({ kind: 'plain' }, {}, {}) })).to.deep.equal(['plain', 'any']);
      const [original] = requests.requests.values();
      return original;
    };

    it('fires a trigger whose path and when still match the stored request', async () => {
      const { fire, requests } = reloadable();
      const original = await firedOnce(fire, requests);
      expect(await fire.replay(original.id)).to.deep.include({ fired: ['plain', 'any'], skipped: [], skippedWhy: [] });
    });

    it('skips, with the reason, a trigger whose when the stored request no longer passes: a tightened filter cannot be bypassed by a replay', async () => {
      const { fire, queue, requests, reload } = reloadable();
      const original = await firedOnce(fire, requests);
      reload({ when: { 'body.kind': { equals: 'NEVER-MATCHES' } } });
      const outcome = await fire.replay(original.id);
      expect(outcome).to.deep.include({ fired: ['any'], skipped: ['plain'], skippedWhy: [{ trigger: 'plain', reason: 'its when no longer matches' }] });
      expect(queue.tasks.slice(2).map((task) => (task.payload as TriggerRunTask).trigger)).to.deep.equal(['any']);
    });

    it("skips, with the reason, a trigger that no longer watches the stored request's path", async () => {
      const { fire, queue, requests, reload } = reloadable();
      const original = await firedOnce(fire, requests);
      reload({ watch_path: '/jobs/status' });
      const outcome = await fire.replay(original.id);
      expect(outcome).to.deep.include({ fired: ['any'], skipped: ['plain'], skippedWhy: [{ trigger: 'plain', reason: 'no longer watches /webhook' }] });
      expect(queue.tasks.slice(2).map((task) => (task.payload as TriggerRunTask).trigger)).to.deep.equal(['any']);
    });

    it("fires a trigger watching another path of the same endpoint (a channel's alias path), as the request did", async () => {
      const { triggers: channel } = validateTriggers(
        [
          { name: 'own', watch_path: '/messaging/telegram/webhook', enabled: true, actions: [{ type: 'command', command: 'true' }] },
          { name: 'alias', watch_path: '/messaging/webhook', enabled: true, actions: [{ type: 'command', command: 'true' }] },
        ],
        'test',
        triggerCatalog(),
      );
      const requests = new InMemoryInboundRequestStore();
      const sameEndpoint = ['/messaging/webhook', '/messaging/telegram/webhook'];
      const endpointPaths = (path: string) => (sameEndpoint.includes(path) ? [path, ...sameEndpoint.filter((other) => other !== path)] : [path]);
      const queue = new InMemoryTaskQueue();
      const lanes = new InMemoryTriggerLanes();
      const fire = new FireTriggers(channel, requests, queue, new SequentialIds(), new FixedClock(), new RecordingLogger(), lanes, undefined, endpointPaths);
      const fired = await executed(fire, { watchPath: '/messaging/webhook', sameEndpointAs: ['/messaging/telegram/webhook'], request });
      expect(fired).to.deep.equal(['own', 'alias']);
      const [original] = requests.requests.values();
      expect(original.watchPath).to.equal('/messaging/webhook');
      expect(await fire.replay(original.id)).to.deep.include({ fired: ['own', 'alias'], skipped: [], skippedWhy: [] });
    });

    it("tests a when against the stored request's numbers exactly: a 64-bit id is compared by its digits", async () => {
      const { triggers: ids } = validateTriggers(
        [
          {
            name: 'mine',
            watch_path: '/webhook',
            enabled: true,
            when: { 'body.chat': { equals: '12345678901234567891' } },
            actions: [{ type: 'command', command: 'true' }],
          },
          {
            name: 'next',
            watch_path: '/webhook',
            enabled: true,
            when: { 'body.chat': { equals: '12345678901234567890' } },
            actions: [{ type: 'command', command: 'true' }],
          },
        ],
        'test',
        triggerCatalog(),
      );
      const requests = new InMemoryInboundRequestStore();
      const fire = new FireTriggers(
        ids,
        requests,
        new InMemoryTaskQueue(),
        new SequentialIds(),
        new FixedClock(),
        new RecordingLogger(),
        new InMemoryTriggerLanes(),
      );
      const id = '20000000-0000-4000-8000-0000000000dd';
      // Stored as if `next` matched when it fired (its filter was changed since): only `mine` passes now.
      const stored = '{"body":{"chat":12345678901234567891},"query":{},"headers":{}}';
      await requests.record({ id, watchPath: '/webhook', receivedAt: new Date(), request: stored, triggers: ['mine', 'next'], runs: [], replayOf: null });
      const outcome = await fire.replay(id);
      expect(outcome).to.deep.include({ fired: ['mine'], skipped: ['next'] });
      expect(requests.requests.get(outcome.requestId!)!.request).to.equal(stored);
    });

    it('stores and queues nothing when none of the triggers can fire now', async () => {
      const { fire, queue, requests } = make();
      const id = '20000000-0000-4000-8000-0000000000bb';
      await requests.record({ id, watchPath: '/webhook', receivedAt: new Date(), request: '{}', triggers: ['off'], runs: [], replayOf: null });
      expect(await fire.replay(id)).to.deep.equal({
        requestId: null,
        fired: [],
        skipped: ['off'],
        skippedWhy: [{ trigger: 'off', reason: 'disabled or removed' }],
      });
      expect(queue.tasks).to.deep.equal([]);
      expect(requests.requests.size).to.equal(1);
    });

    it('is not_found for a request that is not stored', async () => {
      const { fire } = make();
      const error = await fire.replay('20000000-0000-4000-8000-0000000000cc').catch((e: unknown) => e);
      expect(error).to.be.instanceOf(DomainError).and.to.have.property('code', 'not_found');
    });
  });
});

describe('RunTrigger', () => {
  const REQUEST_ID = '20000000-0000-4000-8000-000000000001';
  const task: TriggerRunTask = {
    runId: '30000000-0000-4000-8000-000000000001',
    trigger: 'build',
    watchPath: '/webhook',
    firedAt: '2026-01-01T00:00:00Z',
    requestId: REQUEST_ID,
  };
  const COMMAND_ENV = { PATH: '/usr/bin:/bin', HOME: '/home/gateway', LANG: 'C.UTF-8', EXTRA: 'configured' };
  /** The request that fired `task`, as FireTriggers stores it. */
  const STORED = {
    id: REQUEST_ID,
    watchPath: '/webhook',
    receivedAt: new Date('2026-01-01T00:00:00Z'),
    request: JSON.stringify(request),
    triggers: ['build', 'notify'],
    runs: [],
    replayOf: null,
  };
  const make = (
    shell = new ScriptedShell(),
    forwarder = new RecordingForwarder(),
    jobs = new RecordingJobs(),
    logger = new RecordingLogger(),
    runs = new InMemoryActionRunRepository(),
    startMarks?: InMemoryStartMarks,
  ) => {
    const requests = new InMemoryInboundRequestStore();
    void requests.record(STORED);
    const runner = new RunTrigger(
      triggers,
      runs,
      requests,
      shell,
      forwarder,
      jobs,
      new SequentialIds(),
      new FixedClock(),
      logger,
      {
        triggersDir: '/srv/triggers',
        commandTimeoutMs: 60_000,
        commandEnv: COMMAND_ENV,
      },
      undefined,
      startMarks,
    );
    return { runner, runs, requests, shell, forwarder, jobs, logger };
  };

  it('runs every action in order, in the triggers directory, with values passed as variables, never in the command line', async () => {
    const { runner, runs, shell, forwarder, jobs } = make();
    await runner.execute(task);
    expect(shell.commands).to.deep.equal(['/srv/triggers$ git pull origin -- "${AGW_ARG_1}" (60000)', '/srv/triggers$ make (5000)']);
    expect(forwarder.sent).to.deep.equal([
      { url: 'https://hooks.test/x', method: 'POST', headers: { 'x-token': 't' }, json: { env: 'prod', data: { branch: 'main; rm -rf /' } } },
      { url: 'https://hooks.test/y', method: 'GET', headers: {}, json: undefined },
    ]);
    // The agent's prompt holds the request's value inside an untrusted block (nonce: the first id).
    const tag = `untrusted-input-${new SequentialIds().next().replace(/-/g, '')}`;
    expect(jobs.launched).to.deep.equal([
      {
        job: `${untrustedJobNotice(tag.slice('untrusted-input-'.length))}\n\nReview <${tag} source="body.branch">main; rm -rf /</${tag}>`,
        llmProvider: 'openai',
        llmModel: undefined,
        source: { kind: 'trigger', name: 'build' },
      },
    ]);
    expect(runs.runs.map((r) => [r.actionIndex, r.type, r.status])).to.deep.equal([
      [0, 'command', 'succeeded'],
      [1, 'command', 'succeeded'],
      [2, 'webhook', 'succeeded'],
      [3, 'webhook', 'succeeded'],
      [4, 'agent', 'succeeded'],
    ]);
  });

  it("records a command's output with the COMMAND_ENV values and the service's credentials redacted", async () => {
    const shell = new ScriptedShell([], 'deploying with s3cr3t-deploy-token to db postgres://app:pw-of-the-db@db/app\n');
    const runs = new InMemoryActionRunRepository();
    const requests = new InMemoryInboundRequestStore();
    void requests.record(STORED);
    const redacted = [
      { name: 'DEPLOY_TOKEN', value: 's3cr3t-deploy-token' },
      { name: 'DATABASE_URL password', value: 'pw-of-the-db', context: { before: ':', after: '@' } },
    ];
    const settings = { triggersDir: '/srv/triggers', commandTimeoutMs: 60_000, commandEnv: { ...COMMAND_ENV, DEPLOY_TOKEN: 's3cr3t-deploy-token' }, redacted };
    const runner = new RunTrigger(
      triggers,
      runs,
      requests,
      shell,
      new RecordingForwarder(),
      new RecordingJobs(),
      new SequentialIds(),
      new FixedClock(),
      new RecordingLogger(),
      settings,
    );
    await runner.execute(task);
    // The command still got the value; only what is kept of its output is redacted.
    expect(shell.envs[0]).to.include({ DEPLOY_TOKEN: 's3cr3t-deploy-token' });
    expect(runs.runs[0].detail.output).to.equal('deploying with [redacted DEPLOY_TOKEN] to db postgres://app:[redacted DATABASE_URL password]@db/app\n');
    expect(runs.runs[1].detail.output).to.not.contain('s3cr3t-deploy-token');
  });

  it('goes on after a failed action and records the failure', async () => {
    const { runner, runs, shell } = make(new ScriptedShell([2]));
    await runner.execute(task);
    expect(shell.commands).to.have.length(2);
    expect(runs.runs[0]).to.include({ status: 'failed', attempts: 1, error: 'exit code 2' });
    expect(runs.runs[4].status).to.equal('succeeded');
  });

  it('says what the shell means by exit codes 127 and 126: command not found, not executable', async () => {
    // Before: a bare "exit code 127" for a script that was not there, "exit code 126" for one without its x bit.
    for (const [code, meaning] of [
      [127, 'exit code 127 (command not found: a ./path is relative to TRIGGERS_DIR, a bare name is looked up on PATH)'],
      [126, 'exit code 126 (not executable: found, but without execute permission — chmod +x the script — or no program)'],
    ] as const) {
      const { runner, runs } = make(new ScriptedShell([code]));
      await runner.execute(task);
      expect(runs.runs[0]).to.include({ status: 'failed', error: meaning });
    }
  });

  it('retries a command only as configured', async () => {
    const { runner, runs, shell } = make(new ScriptedShell([0, 1, 1]));
    await runner.execute(task);
    expect(shell.commands.filter((c) => c.includes('make'))).to.have.length(2);
    expect(runs.runs[1]).to.include({ status: 'failed', attempts: 2 });
  });

  it('records a failed webhook with its attempts', async () => {
    const { runner, runs } = make(undefined, new RecordingForwarder({ ok: false, status: 503, attempts: 4, error: 'HTTP 503' }));
    await runner.execute(task);
    expect(runs.runs[2]).to.include({ status: 'failed', attempts: 4, error: 'HTTP 503' });
    expect(runs.runs[2].detail).to.deep.equal({
      httpStatus: 503,
      requestId: REQUEST_ID,
      action: actionFingerprint(triggers[0].actions[2]),
      actions: triggers[0].actions.map((action) => actionFingerprint(action)),
    });
  });

  it('records an agent action as not runnable, with a log line, while jobs are not configured', async () => {
    const { runner, runs, logger } = make(undefined, undefined, new RecordingJobs(false));
    await runner.execute(task);
    expect(runs.runs[4]).to.include({ status: 'not_runnable', error: 'Jobs are not configured' });
    expect(logger.entries.some((e) => e.level === 'warn' && e.message === 'trigger action not runnable')).to.equal(true);
  });

  it("gives commands exactly the configured environment and their own token variables: nothing of the service's", async () => {
    const { runner, shell } = make();
    await runner.execute(task);
    expect(shell.envs).to.deep.equal([{ ...COMMAND_ENV, AGW_ARG_1: 'main; rm -rf /' }, COMMAND_ENV]);
  });

  it('gives the actions the exact digits of numbers a double cannot hold, as the request stored them', async () => {
    const { runner, shell, forwarder } = make();
    // As FireTriggers stores them: the body as parsed at the edge, written with JSON.stringify.
    const body = '{"branch":12345678901234567891,"x":1e400}';
    await runner.execute({
      runId: task.runId,
      trigger: 'build',
      watchPath: '/webhook',
      firedAt: task.firedAt,
      request: `{"body":${body},"query":{},"headers":{}}`,
    });
    expect(shell.envs[0].AGW_ARG_1).to.equal('12345678901234567891');
    expect(JSON.stringify(forwarder.sent[0].json)).to.equal(`{"env":"prod","data":${body}}`);
  });

  it('still runs a task queued before requests were stored once, with the request inline', async () => {
    const { runner, shell, runs } = make();
    await runner.execute({
      runId: task.runId,
      trigger: 'build',
      watchPath: '/webhook',
      firedAt: task.firedAt,
      request: JSON.stringify(snapshotRequest({ branch: 'legacy' }, {}, {})),
    });
    expect(shell.envs[0].AGW_ARG_1).to.equal('legacy');
    expect(runs.runs.map((r) => r.status)).to.deep.equal(['succeeded', 'succeeded', 'succeeded', 'succeeded', 'succeeded']);
  });

  it('records every action as failed, without running any, when the request is no longer stored (no retry would help)', async () => {
    const { runner, runs, shell, forwarder, jobs } = make();
    const missing = '20000000-0000-4000-8000-00000000dead';
    await runner.execute({ ...task, requestId: missing });
    expect(shell.commands).to.deep.equal([]);
    expect(forwarder.sent).to.deep.equal([]);
    expect(jobs.launched).to.deep.equal([]);
    expect(runs.runs).to.have.length(5);
    for (const run of runs.runs) {
      expect(run).to.include({
        status: 'failed',
        attempts: 0,
        error: `the request that fired this trigger (${missing}) is not stored (its caller was answered with an error, or retention removed it); the action was not run`,
      });
    }
  });

  describe('a task that starts before its request has committed (both are stored at the same time)', () => {
    /** A Timer on the test's clock: each wait moves the clock on by its length and ends at once; `onWait` sees each. */
    class ClockTimer implements Timer {
      readonly waits: number[] = [];
      constructor(
        private readonly clock: FixedClock,
        private readonly onWait: (count: number) => void = () => undefined,
      ) {}
      after(ms: number, callback: () => void): () => void {
        this.waits.push(ms);
        setImmediate(() => {
          this.clock.advance(ms);
          this.onWait(this.waits.length);
          callback();
        });
        return () => undefined;
      }
    }
    const makeWaiting = (clock: FixedClock, timer: Timer) => {
      const requests = new InMemoryInboundRequestStore();
      const runs = new InMemoryActionRunRepository();
      const shell = new ScriptedShell();
      const runner = new RunTrigger(
        triggers,
        runs,
        requests,
        shell,
        new RecordingForwarder(),
        new RecordingJobs(),
        new SequentialIds(),
        clock,
        new RecordingLogger(),
        { triggersDir: '/srv/triggers', commandTimeoutMs: 60_000, commandEnv: COMMAND_ENV },
        undefined,
        undefined,
        timer,
      );
      return { runner, runs, requests, shell };
    };

    it('waits for the request and then runs every action with it', async () => {
      const clock = new FixedClock();
      let requests!: InMemoryInboundRequestStore;
      const timer = new ClockTimer(clock, (count) => {
        if (count === 3) void requests.record(STORED);
      });
      const made = makeWaiting(clock, timer);
      requests = made.requests;
      await made.runner.execute(task);
      expect(timer.waits).to.deep.equal([REQUEST_POLL_MS, REQUEST_POLL_MS, REQUEST_POLL_MS]);
      expect(made.shell.envs[0].AGW_ARG_1, 'the stored request').to.equal('main; rm -rf /');
      expect(made.runs.runs.map((r) => r.status)).to.deep.equal(['succeeded', 'succeeded', 'succeeded', 'succeeded', 'succeeded']);
    });

    it('runs nothing when the request never appears (its caller got an error), and says so in every record', async () => {
      const clock = new FixedClock();
      const timer = new ClockTimer(clock);
      const { runner, runs, shell } = makeWaiting(clock, timer);
      await runner.execute(task);
      expect(timer.waits).to.have.length(REQUEST_WAIT_MS / REQUEST_POLL_MS);
      expect(shell.commands).to.deep.equal([]);
      expect(runs.runs.map((r) => [r.status, r.error])).to.deep.equal(
        Array(5).fill([
          'failed',
          `the request that fired this trigger (${REQUEST_ID}) is not stored (its caller was answered with an error, or retention removed it); the action was not run`,
        ]),
      );
    });

    it('does not wait for the request of a task fired long ago (retention removed it)', async () => {
      const clock = new FixedClock(new Date('2026-01-01T00:05:00Z'));
      const timer = new ClockTimer(clock);
      const { runner, runs, shell } = makeWaiting(clock, timer);
      await runner.execute(task);
      expect(timer.waits).to.deep.equal([]);
      expect(shell.commands).to.deep.equal([]);
      expect(runs.runs.map((r) => r.status)).to.deep.equal(['failed', 'failed', 'failed', 'failed', 'failed']);
    });
  });

  it('throws, running nothing, when the request cannot be read, so the queue retries the task', async () => {
    const { runner, requests, shell } = make();
    requests.find = async () => {
      throw new Error('database unreachable');
    };
    const error = await runner.execute(task).catch((e: Error) => e);
    expect(error).to.be.instanceOf(Error);
    expect(shell.commands).to.deep.equal([]);
  });

  it('logs a record that cannot be saved at error level and goes on, so that no action runs again', async () => {
    const logger = new RecordingLogger();
    const { runner, shell, forwarder } = make(undefined, undefined, undefined, logger, new FailingActionRunRepository());
    await runner.execute(task); // resolves: the queue will not retry the task
    expect(shell.commands).to.have.length(2);
    expect(forwarder.sent).to.have.length(2);
    const errors = logger.entries.filter((e) => e.level === 'error');
    expect(errors.map((e) => e.message)).to.deep.equal(Array(5).fill('trigger action ran but its record could not be saved; it is not run again'));
    expect(errors[0].fields).to.include({ trigger: 'build', runId: task.runId, action: 0, status: 'succeeded' });
    expect(JSON.stringify(errors)).to.not.contain('main; rm -rf /');
  });

  it('starts nothing when it cannot record that an action starts: the task fails, so the queue retries it', async () => {
    const { runner, shell, forwarder } = make(undefined, undefined, undefined, undefined, new UnreachableActionRunRepository());
    const error = await runner.execute(task).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(Error).and.to.have.property('message', 'connect ECONNREFUSED');
    expect(shell.commands).to.deep.equal([]);
    expect(forwarder.sent).to.deep.equal([]);
  });

  /** The record a dead worker left: action 0 of the task, running. */
  const leftRunning = (detail: Record<string, unknown> = { requestId: REQUEST_ID }): ActionRun => ({
    runId: task.runId,
    trigger: 'build',
    actionIndex: 0,
    type: 'command',
    status: 'running',
    attempts: 0,
    startedAt: new Date('2026-01-01T00:00:00Z'),
    finishedAt: new Date('2026-01-01T00:00:00Z'),
    error: null,
    detail,
  });

  it('never starts again an action that was running when its worker died: recorded as interrupted, the rest go on', async () => {
    const { runner, runs, shell } = make();
    await runs.save(leftRunning());
    await runner.execute(task); // the queue runs the task again after the crash
    expect(shell.commands).to.have.length(1);
    expect(shell.commands[0]).to.contain('make');
    const first = runs.runs.find((run) => run.actionIndex === 0)!;
    expect(first).to.include({ status: 'failed', error: INTERRUPTED });
    expect(runs.runs.filter((run) => run.status === 'running')).to.deep.equal([]);
  });

  describe('with start marks (a command found running after a crash)', () => {
    /** Action 0 left running, with the start mark its command was given. */
    const leftMarked = (marks: InMemoryStartMarks, where = marks.place(task.runId, 0).where): ActionRun =>
      leftRunning({ requestId: REQUEST_ID, startMark: where });

    it('gives each command a start mark, records it while running, and clears it once the outcome is recorded', async () => {
      const marks = new InMemoryStartMarks();
      const runs = new InMemoryActionRunRepository();
      const seen: ActionRun[] = [];
      const save = runs.save.bind(runs);
      runs.save = async (run) => {
        seen.push(run);
        return save(run);
      };
      const { runner, shell } = make(new ScriptedShell([], 'out', marks), undefined, undefined, undefined, runs, marks);
      await runner.execute(task);
      expect(shell.startMarks).to.deep.equal([marks.place(task.runId, 0).path, marks.place(task.runId, 1).path]);
      expect(seen.find((run) => run.status === 'running' && run.actionIndex === 0)?.detail).to.deep.equal({
        requestId: REQUEST_ID,
        startMark: marks.place(task.runId, 0).where,
        action: actionFingerprint(triggers[0].actions[0]),
        actions: triggers[0].actions.map((action) => actionFingerprint(action)),
      });
      expect(runs.runs.find((run) => run.actionIndex === 0)).to.include({ status: 'succeeded' });
      expect([...marks.made]).to.deep.equal([]);
    });

    it('keeps the mark of a command whose outcome could not be saved: a retry of the task never starts it again', async () => {
      const marks = new InMemoryStartMarks();
      const runs = new InMemoryActionRunRepository();
      const save = runs.save.bind(runs);
      let outcomesSaved = false;
      // The database refuses the outcome of action 0 (the `running` record was saved before).
      runs.save = async (run) => {
        if (run.status !== 'running' && !outcomesSaved) throw new Error('connection reset');
        return save(run);
      };
      const { runner, shell } = make(new ScriptedShell([], 'out', marks), undefined, undefined, undefined, runs, marks);
      await runner.execute(task);
      expect([...marks.made]).to.include(marks.place(task.runId, 0).where);
      // The task runs again (a retry after a crash): action 0 stands recorded running, its mark made.
      outcomesSaved = true;
      const before = shell.commands.length;
      await runner.execute(task);
      expect(shell.commands.slice(before).map((command) => command.split(' ')[1])).not.to.include('git');
      expect(runs.runs.find((run) => run.actionIndex === 0)).to.deep.include({ status: 'failed' });
    });

    it('starts now, once, a command that was recorded running but never started (its mark was never made)', async () => {
      const marks = new InMemoryStartMarks();
      const { runner, runs, shell, logger } = make(new ScriptedShell([], 'out', marks), undefined, undefined, undefined, undefined, marks);
      await runs.save(leftMarked(marks));
      await runner.execute(task);
      expect(shell.commands.map((command) => command.split(' ')[1])).to.deep.equal(['git', 'make']);
      expect(runs.runs.find((run) => run.actionIndex === 0)).to.include({ status: 'succeeded', error: null });
      expect(logger.entries.some((entry) => entry.message.includes('never started; starting it now'))).to.equal(true);
    });

    it('never starts again a command whose mark says it started, nor one whose mark this machine cannot see', async () => {
      for (const where of [undefined, 'another-host:/var/lib/agent-gateway/run-marks/x.0']) {
        const marks = new InMemoryStartMarks();
        const { runner, runs, shell } = make(new ScriptedShell([], 'out', marks), undefined, undefined, undefined, undefined, marks);
        const record = leftMarked(marks, where);
        if (where === undefined) marks.touch(marks.place(task.runId, 0).path);
        await runs.save(record);
        await runner.execute(task);
        expect(shell.commands, String(where)).to.have.length(1);
        expect(shell.commands[0]).to.contain('make');
        // a command without retries: its one attempt
        expect(runs.runs.find((run) => run.actionIndex === 0)).to.include({ status: 'failed', error: INTERRUPTED, attempts: 1 });
        expect([...marks.made], 'the mark is cleared once the outcome is recorded').to.deep.equal([]);
      }
    });

    it('records the outcome a command left when it ended after its service let it go, instead of "interrupted"; never starts it again', async () => {
      for (const [left, expected] of [
        [
          { exitCode: 0, timedOut: false, aborted: false, durationMs: 42_000, output: 'deployed\n' },
          { status: 'succeeded', error: null },
        ],
        [
          { exitCode: 4, timedOut: false, aborted: false, durationMs: 9000, output: 'failed late\n' },
          { status: 'failed', error: 'exit code 4' },
        ],
      ] as const) {
        const marks = new InMemoryStartMarks();
        const { runner, runs, shell } = make(new ScriptedShell([], 'out', marks), undefined, undefined, undefined, undefined, marks);
        const place = marks.place(task.runId, 0);
        marks.touch(place.path);
        marks.leave(place.path, left);
        await runs.save(leftMarked(marks));
        await runner.execute(task);
        expect(shell.commands.map((command) => command.split(' ')[1])).to.deep.equal(['make']);
        const recorded = runs.runs.find((run) => run.actionIndex === 0)!;
        expect(recorded).to.include({ ...expected, attempts: 1 });
        expect(recorded.detail).to.include({ exitCode: left.exitCode, commandMs: left.durationMs, output: left.output, endedAfterStop: true });
        expect([...marks.made, ...marks.outcomes.keys()], 'the mark and its outcome are cleared once recorded').to.deep.equal([]);
      }
    });

    describe('a command with retries whose second attempt runs when the service stops', () => {
      const { triggers: retrying } = validateTriggers(
        [
          {
            name: 'deploy',
            watch_path: '/webhook',
            enabled: true,
            actions: [
              { type: 'command', command: 'deploy', retries: 2 },
              { type: 'command', command: 'notify' },
            ],
          },
        ],
        'test',
        triggerCatalog(),
      );
      const deploy: TriggerRunTask = { ...task, runId: '30000000-0000-4000-8000-0000000000d1', trigger: 'deploy' };

      /** A shell whose first attempt of `deploy` fails, and whose second starts (its mark made) and never answers: the service stops without waiting for it. */
      class StoppedOnSecondAttempt implements ShellExecutor {
        readonly commands: string[] = [];
        constructor(private readonly marks: InMemoryStartMarks) {}
        async run(command: string, options: ShellOptions): Promise<ShellRun> {
          this.commands.push(command);
          if (options.startMark !== undefined) this.marks.touch(options.startMark, options.startAttempt);
          if (this.commands.length === 1) return { exitCode: 1, timedOut: false, aborted: false, durationMs: 1, output: 'first attempt failed\n' };
          return new Promise<ShellRun>(() => undefined);
        }
      }

      /** A gateway process running triggers `retrying`, over the records and marks it shares with the one before it. */
      const gateway = (shell: ShellExecutor, runs: InMemoryActionRunRepository, marks: InMemoryStartMarks): RunTrigger => {
        const requests = new InMemoryInboundRequestStore();
        void requests.record(STORED);
        const settings = { triggersDir: '/srv/triggers', commandTimeoutMs: 60_000, commandEnv: COMMAND_ENV };
        const ids = new SequentialIds();
        return new RunTrigger(
          retrying,
          runs,
          requests,
          shell,
          new RecordingForwarder(),
          new RecordingJobs(),
          ids,
          new FixedClock(),
          new RecordingLogger(),
          settings,
          undefined,
          marks,
        );
      };

      /** Runs `deploy` until its second attempt runs, then "restarts": a new gateway runs the task again after `meanwhile`. */
      const stoppedThenRunAgain = async (meanwhile: (marks: InMemoryStartMarks) => void) => {
        const marks = new InMemoryStartMarks();
        const runs = new InMemoryActionRunRepository();
        const before = new StoppedOnSecondAttempt(marks);
        void gateway(before, runs, marks).execute(deploy);
        await waitFor(() => before.commands.length === 2, 5000, 'the second attempt to start');
        expect(await marks.attempt(marks.place(deploy.runId, 0).where), 'the mark says the second attempt').to.equal(2);
        meanwhile(marks);
        const after = new ScriptedShell([], 'out', marks);
        await gateway(after, runs, marks).execute(deploy);
        expect(
          after.commands.map((command) => command.split(' ')[1]),
          'deploy is not started a third time',
        ).to.deep.equal(['notify']);
        return runs.runs.find((run) => run.actionIndex === 0)!;
      };

      it('is recorded interrupted with 2 attempts when it left no outcome', async () => {
        const recorded = await stoppedThenRunAgain(() => undefined);
        expect(recorded).to.include({ status: 'failed', error: INTERRUPTED, attempts: 2 });
      });

      it('is recorded with the outcome it left and 2 attempts when it ended after the stop', async () => {
        const left = { exitCode: 0, timedOut: false, aborted: false, durationMs: 30_000, output: 'deployed on the second attempt\n' };
        const recorded = await stoppedThenRunAgain((marks) => marks.leave(marks.place(deploy.runId, 0).path, left));
        expect(recorded).to.include({ status: 'succeeded', error: null, attempts: 2 });
        expect(recorded.detail).to.include({ output: left.output, endedAfterStop: true });
      });
    });
  });

  it('records the whole output up to 16 KiB, with NUL and lone surrogates replaced', async () => {
    const long = `${'x'.repeat(RECORDED_OUTPUT - 2)}🎉`;
    const cases: Array<[string, string]> = [
      ['a\u0000b \ud800 c', 'a\ufffdb \ufffd c'],
      [long, long],
    ];
    for (const [output, recorded] of cases) {
      const { runner, runs } = make(new ScriptedShell([], output));
      await runner.execute(task);
      expect(runs.runs[0].detail.output, JSON.stringify(output.slice(0, 20))).to.equal(recorded);
    }
  });

  it('records the beginning and the end of a longer output, saying how much was left out, without splitting a surrogate pair', async () => {
    // 4 KiB of head ending inside an emoji; 12 KiB of tail starting inside another.
    const output = `${'h'.repeat(4095)}🎉${'m'.repeat(5000)}🎉${'t'.repeat(12 * 1024 - 1)}`;
    const { runner, runs } = make(new ScriptedShell([], output));
    await runner.execute(task);
    const recorded = runs.runs[0].detail.output as string;
    expect(recorded).to.equal(`${'h'.repeat(4095)}\n[… ${2 + 5000 + 2} characters left out …]\n${'t'.repeat(12 * 1024 - 1)}`);
  });

  it('records the id of the request that fired the run with every action', async () => {
    const { runner, runs } = make();
    await runner.execute(task);
    expect(runs.runs.map((r) => r.detail.requestId)).to.deep.equal(Array(5).fill(REQUEST_ID));
  });

  it('keeps command output out of info log lines', async () => {
    const logger = new RecordingLogger();
    const { runner } = make(new ScriptedShell([], 'request text in the output'), undefined, undefined, logger);
    await runner.execute(task);
    const info = logger.entries.filter((e) => e.level === 'info');
    expect(info).to.have.length.above(0);
    expect(JSON.stringify(info)).to.not.contain('request text in the output');
  });

  it("keeps a failed command's output out of every log line, at every level, saying only its exit code and length", async () => {
    const written: string[] = [];
    const logger = new PinoLogger(createPino('trace', { write: (line: string) => void written.push(line) }));
    const output = 'deploy failed: token=s3cr3t-from-the-script, request said "hello"\n';
    // make() takes its logger as a RecordingLogger; any Logger will do for RunTrigger.
    const { runner, runs } = make(new ScriptedShell([3], output), undefined, undefined, logger as unknown as RecordingLogger);
    await runner.execute(task);
    expect(runs.runs[0]).to.include({ status: 'failed', error: 'exit code 3' });
    expect(runs.runs[0].detail.output, 'the output stays in the run record').to.equal(output);
    const lines = written.map((line) => JSON.parse(line) as Record<string, unknown>);
    const failed = lines.find((line) => line.msg === 'trigger action failed');
    expect(failed).to.include({ level: 40, action: 0, type: 'command', exitCode: 3, outputLength: output.length });
    expect(failed).to.not.have.property('output');
    expect(written.join('')).to.not.contain('s3cr3t-from-the-script');
  });

  it("records a value too large for an environment variable as the action's failure, without running it", async () => {
    const { runner, runs, shell, requests } = make();
    const id = '20000000-0000-4000-8000-000000000002';
    await requests.record({
      id,
      watchPath: '/webhook',
      receivedAt: new Date(),
      request: JSON.stringify(snapshotRequest({ branch: 'x'.repeat(200_000) }, {}, {})),
      triggers: ['build'],
      runs: [],
      replayOf: null,
    });
    await runner.execute({ ...task, requestId: id });
    expect(runs.runs[0]).to.include({ status: 'failed', attempts: 0 });
    expect(runs.runs[0].error).to.match(/^the value of \{\{body\.branch\}\} is larger than the 128 KiB an environment variable can hold/);
    expect(shell.commands).to.deep.equal(['/srv/triggers$ make (5000)']);
  });

  it('stops its running command when the queue takes the task back, starts no further action, and the next run goes on from there', async () => {
    const hanging = new HangingShell();
    const { runner, runs, logger } = make(hanging as unknown as ScriptedShell);
    const queueClaim = new AbortController();
    const first = runner.execute(task, { signal: queueClaim.signal });
    await waitFor(() => hanging.commands.length === 1, 5_000, 'the first command');
    queueClaim.abort(new Error("the task queue took this task back: it ran past its queue's time limit of 86400 s"));
    let thrown: unknown;
    await first.catch((error: unknown) => (thrown = error));
    expect(String(thrown)).to.match(/stopped before action 1: the task queue took this task back/);
    expect(hanging.commands, 'no second command started').to.have.length(1);
    expect(runs.runs.map((run) => [run.actionIndex, run.status, run.error])).to.deep.equal([
      [0, 'failed', "stopped: the task queue took this task back: it ran past its queue's time limit of 86400 s"],
    ]);
    expect(logger.entries.map((entry) => entry.message)).to.include('trigger run stopped; its next actions run when the task queue runs it again');
    // The queue runs the task again: the stopped command is not repeated, the rest run once.
    const { runner: again, shell } = make(new ScriptedShell(), new RecordingForwarder(), new RecordingJobs(), new RecordingLogger(), runs);
    await again.execute(task, { signal: new AbortController().signal });
    expect(shell.commands).to.deep.equal(['/srv/triggers$ make (5000)']);
    expect(runs.runs.map((run) => [run.actionIndex, run.status])).to.deep.equal([
      [0, 'failed'],
      [1, 'succeeded'],
      [2, 'succeeded'],
      [3, 'succeeded'],
      [4, 'succeeded'],
    ]);
  });

  it('stops its webhook under way when the queue takes the task back, recording why, and starts no further action', async () => {
    const forwarder = new HangingForwarder();
    const { runner, runs } = make(new ScriptedShell(), forwarder as unknown as RecordingForwarder);
    const queueClaim = new AbortController();
    const first = runner.execute(task, { signal: queueClaim.signal });
    await waitFor(() => forwarder.sent.length === 1, 5_000, 'the first webhook');
    queueClaim.abort(new Error('the task queue took this task back: its claim was lost'));
    let thrown: unknown;
    await first.catch((error: unknown) => (thrown = error));
    expect(String(thrown)).to.match(/stopped before action 3: the task queue took this task back/);
    expect(forwarder.sent, 'no second webhook sent').to.have.length(1);
    expect(runs.runs.map((run) => [run.actionIndex, run.status, run.error])).to.deep.equal([
      [0, 'succeeded', null],
      [1, 'succeeded', null],
      [2, 'failed', 'stopped: the task queue took this task back: its claim was lost'],
    ]);
  });

  it('stops before an action that another run of the same task started meanwhile (a replica took the task over), running nothing twice', async () => {
    const runs = new InMemoryActionRunRepository();
    // While this run's first command runs, the task's retry on another replica records action 0
    // as interrupted and starts action 1.
    const shell = new (class extends ScriptedShell {
      override async run(command: string, options: ShellOptions): Promise<ShellRun> {
        if (command.startsWith('git pull')) {
          await runs.save({ ...leftRunning(), status: 'failed', error: INTERRUPTED, attempts: 1 });
          await runs.save({ ...leftRunning(), actionIndex: 1, detail: { startMark: 'elsewhere' } });
        }
        return super.run(command, options);
      }
    })();
    const { runner, logger } = make(shell, new RecordingForwarder(), new RecordingJobs(), new RecordingLogger(), runs);
    let thrown: unknown;
    await runner.execute(task).catch((error: unknown) => (thrown = error));
    expect(String(thrown)).to.match(/action 1 was started by another run of this task meanwhile/);
    expect(shell.commands.map((command) => command.split(' ')[1])).to.deep.equal(['git'], 'make is not run here');
    expect((await runs.forRun(task.runId)).map((run) => [run.actionIndex, run.status])).to.deep.equal([
      [0, 'succeeded'],
      [1, 'running'],
    ]);
    expect(logger.entries.map((entry) => entry.message)).to.include('trigger action started by another run of the same task meanwhile; this run stops');
  });

  describe("a run queued before its trigger's `concurrency` changed (a reload)", () => {
    const deploy = (concurrency?: number) =>
      validateTriggers(
        [
          {
            name: 'deploy',
            watch_path: '/webhook',
            enabled: true,
            ...(concurrency === undefined ? {} : { concurrency }),
            actions: [{ type: 'command', command: 'deploy' }],
          },
        ],
        'test',
        triggerCatalog(),
      ).triggers;

    /** A shell whose commands each run until the test lets them end, counting how many run at once. */
    class GatedShell implements ShellExecutor {
      readonly started: string[] = [];
      readonly #waiting: Array<() => void> = [];
      running = 0;
      most = 0;
      async run(command: string): Promise<ShellRun> {
        this.started.push(command);
        this.running++;
        this.most = Math.max(this.most, this.running);
        await new Promise<void>((resolve) => this.#waiting.push(resolve));
        this.running--;
        return { exitCode: 0, timedOut: false, aborted: false, durationMs: 1, output: '' };
      }
      /** Ends every command running now. */
      endAll(): void {
        for (const end of this.#waiting.splice(0)) end();
      }
    }

    it('keeps the new limit: runs of lanes the trigger no longer has, and of the plain queue, are moved into its lanes and run once each', async () => {
      const queue = new InMemoryTaskQueue();
      const lanes = new InMemoryTriggerLanes();
      const requests = new InMemoryInboundRequestStore();
      let configured = deploy(3);
      const live = { current: () => configured };
      const fire = new FireTriggers(live, requests, queue, new SequentialIds(), new FixedClock(), new RecordingLogger(), lanes);
      // Three runs in lanes 0, 1 and 2; then `concurrency` removed: two runs on the plain queue.
      for (let i = 0; i < 3; i++) await executed(fire, { watchPath: '/webhook', request });
      configured = deploy();
      for (let i = 0; i < 2; i++) await executed(fire, { watchPath: '/webhook', request });
      expect(queue.tasks.map((task) => `${task.queue} ${task.group ?? '-'}`)).to.deep.equal([
        'trigger-run-ordered deploy#0',
        'trigger-run-ordered deploy#1',
        'trigger-run-ordered deploy#2',
        'trigger-run -',
        'trigger-run -',
      ]);
      // Reloaded with `concurrency: 1` before any of them ran.
      configured = deploy(1);
      const shell = new GatedShell();
      const runs = new InMemoryActionRunRepository();
      const logger = new RecordingLogger();
      const runner = makeRunner(live, queue, lanes, shell, { runs, logger, requests });
      await queue.work<TriggerRunTask>(TRIGGER_RUN_QUEUE, (task, { id, signal }) => runner.execute(task, { signal, taskId: id }));
      await queue.work<TriggerRunTask>(TRIGGER_RUN_ORDERED_QUEUE, (task, { id, signal }) => runner.execute(task, { signal, taskId: id, ordered: true }), {
        oneAtATimePerGroup: true,
      });
      const finished = () => runs.runs.filter((run) => run.status === 'succeeded').length;
      for (let ended = 1; ended <= 5; ended++) {
        await waitFor(() => shell.running === 1, 5_000, `run ${ended} started`);
        shell.endAll();
        await waitFor(() => finished() === ended, 5_000, `run ${ended} finished`);
      }
      expect(shell.most, 'runs at once').to.equal(1);
      expect(shell.started).to.have.length(5);
      expect(new Set(runs.runs.map((run) => run.runId)).size, 'each run once').to.equal(5);
      // Moved: the runs of lanes 1 and 2 and of the plain queue, each once, into lane 0.
      expect(logger.entries.filter((entry) => entry.message.startsWith('run queued again'))).to.have.length(4);
      expect(queue.tasks.slice(5).map((task) => `${task.queue} ${task.group} ${(task.payload as TriggerRunTask).lane}`)).to.deep.equal(
        Array(4).fill('trigger-run-ordered deploy#0 0'),
      );
    });

    it('moves a run once when its task runs again after the move (its worker died before it finished)', async () => {
      const queue = new InMemoryTaskQueue();
      const lanes = new InMemoryTriggerLanes();
      const runner = makeRunner(deploy(2), queue, lanes);
      const queued: TriggerRunTask = { ...task, trigger: 'deploy', lane: 4 };
      await runner.execute(queued, { taskId: 'old-task', ordered: true });
      await runner.execute(queued, { taskId: 'old-task', ordered: true });
      expect(queue.tasks.map((moved) => `${moved.queue} ${moved.group}`)).to.deep.equal(['trigger-run-ordered deploy#0']);
    });

    it('runs where it is a run whose lane the trigger still has, and any run of a trigger whose `concurrency` was removed', async () => {
      const queue = new InMemoryTaskQueue();
      const lanes = new InMemoryTriggerLanes();
      const shell = new ScriptedShell();
      await makeRunner(deploy(2), queue, lanes, shell).execute({ ...task, trigger: 'deploy', lane: 1 }, { taskId: 'a', ordered: true });
      await makeRunner(deploy(), queue, lanes, shell).execute({ ...task, trigger: 'deploy', lane: 7 }, { taskId: 'b', ordered: true });
      // Queued by an earlier version, which did not name the lane: kept where it is.
      await makeRunner(deploy(1), queue, lanes, shell).execute({ ...task, trigger: 'deploy' }, { taskId: 'c', ordered: true });
      expect(shell.commands).to.have.length(3);
      expect(queue.tasks).to.deep.equal([]);
    });

    /** A runner that moves runs between lanes; `requests` holds the task's request unless given. */
    const makeRunner = (
      configured: TriggerSource,
      queue: InMemoryTaskQueue,
      lanes: InMemoryTriggerLanes,
      shell: ShellExecutor = new ScriptedShell(),
      parts: { runs?: InMemoryActionRunRepository; logger?: RecordingLogger; requests?: InMemoryInboundRequestStore } = {},
    ) => {
      const requests = parts.requests ?? new InMemoryInboundRequestStore();
      if (parts.requests === undefined) void requests.record(STORED);
      return new RunTrigger(
        configured,
        parts.runs ?? new InMemoryActionRunRepository(),
        requests,
        shell,
        new RecordingForwarder(),
        new RecordingJobs(),
        new SequentialIds(),
        new FixedClock(),
        parts.logger ?? new RecordingLogger(),
        { triggersDir: '/srv/triggers', commandTimeoutMs: 60_000, commandEnv: COMMAND_ENV },
        undefined,
        undefined,
        undefined,
        { queue, lanes },
      );
    };
  });

  it('does not repeat actions already recorded when a task runs again', async () => {
    const { runner, runs, shell } = make();
    await runs.save({
      runId: task.runId,
      trigger: 'build',
      actionIndex: 0,
      type: 'command',
      status: 'succeeded',
      attempts: 1,
      startedAt: new Date(),
      finishedAt: new Date(),
      error: null,
      detail: {},
    });
    await runner.execute(task);
    expect(shell.commands).to.deep.equal(['/srv/triggers$ make (5000)']);
  });

  describe('a task run again after a reload changed the trigger’s actions (docs/triggers.md: "actions it had already finished are not repeated")', () => {
    const command = (line: string) => ({ type: 'command' as const, command: line });
    const deployTrigger = (actions: ReturnType<typeof command>[]): Trigger => ({ name: 'build', watchPath: '/webhook', enabled: true, actions });

    /** Runs each command; once `stopAfter` have run, aborts the task's signal (the service stops, the queue runs the task again). */
    class StoppingShell implements ShellExecutor {
      readonly commands: string[] = [];
      constructor(
        private readonly controller?: AbortController,
        private readonly stopAfter = Number.POSITIVE_INFINITY,
      ) {}
      async run(line: string, _options: ShellOptions): Promise<ShellRun> {
        this.commands.push(line);
        if (this.commands.length >= this.stopAfter) this.controller?.abort(new Error('the service stops'));
        return { exitCode: 0, timedOut: false, aborted: false, durationMs: 1, output: '' };
      }
    }

    /**
     * Runs the task with `before` as the trigger's actions until `stopAfter` commands ran (the
     * service stops), then again with `after` (the trigger file reloaded meanwhile). Returns the
     * commands of each attempt and the records.
     */
    const attempts = async (before: string[], stopAfter: number, after: string[], runs = new InMemoryActionRunRepository()) => {
      const requests = new InMemoryInboundRequestStore();
      await requests.record(STORED);
      let current: readonly Trigger[] = [deployTrigger(before.map(command))];
      const source: TriggerSource = { current: () => current };
      const runner = (shell: ShellExecutor) =>
        new RunTrigger(
          source,
          runs,
          requests,
          shell,
          new RecordingForwarder(),
          new RecordingJobs(),
          new SequentialIds(),
          new FixedClock(),
          new RecordingLogger(),
          {
            triggersDir: '/srv/triggers',
            commandTimeoutMs: 60_000,
            commandEnv: COMMAND_ENV,
          },
        );
      const controller = new AbortController();
      const first = new StoppingShell(controller, stopAfter);
      const stopped = await runner(first)
        .execute(task, { signal: controller.signal })
        .then(() => undefined)
        .catch((error: unknown) => error);
      expect(stopped, 'the first attempt is stopped').to.be.instanceOf(Error);
      current = [deployTrigger(after.map(command))];
      const second = new StoppingShell();
      await runner(second).execute(task);
      return { first: first.commands, second: second.commands, runs };
    };

    it('an action inserted before finished ones: it runs, and the finished ones do not run again', async () => {
      const { first, second, runs } = await attempts(['./deploy.sh', './notify.sh'], 1, ['./check.sh', './deploy.sh', './notify.sh']);
      expect(first).to.deep.equal(['./deploy.sh']);
      expect(second).to.deep.equal(['./check.sh', './notify.sh']);
      expect(runs.runs.map((run) => run.status)).to.deep.equal(['succeeded', 'succeeded', 'succeeded']);
    });

    it('a finished action removed: the actions after it still run', async () => {
      const { first, second } = await attempts(['./a.sh', './b.sh', './c.sh'], 2, ['./b.sh', './c.sh']);
      expect(first).to.deep.equal(['./a.sh', './b.sh']);
      expect(second).to.deep.equal(['./c.sh']);
    });

    it('actions reordered: only those that did not run, in their new order', async () => {
      const { first, second } = await attempts(['./a.sh', './b.sh', './c.sh'], 1, ['./c.sh', './b.sh', './a.sh']);
      expect(first).to.deep.equal(['./a.sh']);
      expect(second).to.deep.equal(['./c.sh', './b.sh']);
    });

    it('identical actions are matched in order: each runs as often as the trigger lists it, no more', async () => {
      const { first, second } = await attempts(['./bump.sh', './bump.sh', './tag.sh'], 1, ['./check.sh', './bump.sh', './bump.sh', './tag.sh']);
      expect(first).to.deep.equal(['./bump.sh']);
      expect(second).to.deep.equal(['./check.sh', './bump.sh', './tag.sh']);
      expect([...first, ...second].filter((line) => line === './bump.sh')).to.have.length(2);
    });

    it('a finished action changed: neither it nor the changed one runs again (they may be one action), and the record says why; the rest runs', async () => {
      const { second, runs } = await attempts(['./deploy.sh', './notify.sh'], 1, ['./deploy.sh --fast', './notify.sh']);
      expect(second).to.deep.equal(['./notify.sh']);
      const changed = runs.runs.find((run) => run.error === RELOADED_UNDER_WAY);
      expect(changed, 'the changed action is recorded as not run, with why').to.include({ status: 'failed', attempts: 0 });
      expect(changed?.detail.action).to.equal(actionFingerprint(command('./deploy.sh --fast')));
    });

    it('an action left running (its worker died) that a reload removed is closed as interrupted, not left running, and not run again', async () => {
      const runs = new InMemoryActionRunRepository();
      const requests = new InMemoryInboundRequestStore();
      await requests.record(STORED);
      await runs.save({
        runId: task.runId,
        trigger: 'build',
        actionIndex: 0,
        type: 'command',
        status: 'running',
        attempts: 0,
        startedAt: new Date(),
        finishedAt: new Date(),
        error: null,
        detail: { requestId: REQUEST_ID, action: actionFingerprint(command('./old.sh')) },
      });
      const source: TriggerSource = { current: () => [deployTrigger([command('./new.sh')])] };
      const shell = new StoppingShell();
      await new RunTrigger(
        source,
        runs,
        requests,
        shell,
        new RecordingForwarder(),
        new RecordingJobs(),
        new SequentialIds(),
        new FixedClock(),
        new RecordingLogger(),
        {
          triggersDir: '/srv/triggers',
          commandTimeoutMs: 60_000,
          commandEnv: COMMAND_ENV,
        },
      ).execute(task);
      expect(shell.commands, 'new.sh may be old.sh changed: not run').to.deep.equal([]);
      expect(runs.runs.find((run) => run.actionIndex === 0)?.status).to.equal('failed');
      expect(runs.runs.find((run) => run.actionIndex === 0)?.error).to.match(/^interrupted: .*no longer in the trigger as it was/);
      expect(runs.runs.filter((run) => run.status === 'running')).to.deep.equal([]);
    });
  });

  // These two asserted before that a dropped run left no record (only the log line): its run then
  // looked queued for good. Its actions are now recorded not run, with why, as for a `when`.
  it('drops, with a warning, a queued run of a trigger disabled since it was queued, running none of its actions and recording each not run, with why', async () => {
    const { runner, runs, shell, logger } = make();
    await runner.execute({ ...task, trigger: 'off' });
    expect(shell.commands).to.deep.equal([]);
    expect(runs.runs.map((run) => [run.actionIndex, run.type, run.status, run.attempts, run.error, run.detail.requestId])).to.deep.equal([
      [0, 'command', 'not_runnable', 0, TRIGGER_DISABLED, REQUEST_ID],
    ]);
    expect(logger.entries.filter((e) => e.message === 'trigger is disabled; its queued run is dropped').map((e) => e.level)).to.deep.equal(['warn']);
  });

  it('drops, with a warning, a queued run of a trigger that is no longer configured, recording that its actions (not known any more) did not run, with why', async () => {
    const { runner, runs, logger } = make();
    await runner.execute({ ...task, trigger: 'removed' });
    expect(runs.runs.map((run) => [run.actionIndex, run.type, run.status, run.attempts, run.error, run.detail.requestId])).to.deep.equal([
      [0, 'unknown', 'not_runnable', 0, TRIGGER_REMOVED, REQUEST_ID],
    ]);
    expect(logger.entries.filter((e) => e.message === 'trigger is no longer configured; its queued run is dropped').map((e) => e.level)).to.deep.equal([
      'warn',
    ]);
  });

  it('a queued run of a trigger removed before it ran records each action not run with its type as queued (a task from before types were queued: one `unknown` record)', async () => {
    const { runner, runs } = make();
    await runner.execute({ ...task, trigger: 'removed', actionTypes: ['command', 'agent'] });
    // Before, the task's action types were not read: one record of type `unknown` stood for both.
    expect(runs.runs.map((run) => [run.actionIndex, run.type, run.status, run.attempts, run.error, run.detail.requestId])).to.deep.equal([
      [0, 'command', 'not_runnable', 0, TRIGGER_REMOVED, REQUEST_ID],
      [1, 'agent', 'not_runnable', 0, TRIGGER_REMOVED, REQUEST_ID],
    ]);
  });

  it("a removed trigger's queued run whose records were written part way (the process ended after the first) records the rest when tried again, each once", async () => {
    const runs = new InMemoryActionRunRepository();
    await runs.save({
      runId: task.runId,
      trigger: 'removed',
      actionIndex: 0,
      type: 'command',
      status: 'not_runnable',
      attempts: 0,
      startedAt: new Date(),
      finishedAt: new Date(),
      error: TRIGGER_REMOVED,
      detail: { requestId: REQUEST_ID },
    });
    const { runner } = make(undefined, undefined, undefined, undefined, runs);
    const again = { ...task, trigger: 'removed', actionTypes: ['command', 'agent', 'webhook'] as const };
    await runner.execute(again);
    await runner.execute(again);
    expect((await runs.forRun(task.runId)).map((run) => [run.actionIndex, run.type, run.status, run.error])).to.deep.equal([
      [0, 'command', 'not_runnable', TRIGGER_REMOVED],
      [1, 'agent', 'not_runnable', TRIGGER_REMOVED],
      [2, 'webhook', 'not_runnable', TRIGGER_REMOVED],
    ]);
  });

  it('a run under way whose trigger was removed since: what ran keeps its record, the action left running is closed, and one record says the rest did not run; nothing is added when nothing was left', async () => {
    const [first, second] = [actionFingerprint({ type: 'command', command: './a.sh' }), actionFingerprint({ type: 'command', command: './b.sh' })];
    const record = (runId: string, status: ActionRun['status'], actions: string[]): ActionRun => ({
      runId,
      trigger: 'removed',
      actionIndex: 0,
      type: 'command',
      status,
      attempts: 1,
      startedAt: new Date(),
      finishedAt: new Date(),
      error: null,
      detail: { requestId: REQUEST_ID, action: first, actions },
    });
    const runs = new InMemoryActionRunRepository();
    const leftOver = '30000000-0000-4000-8000-000000000002';
    const allRan = '30000000-0000-4000-8000-000000000003';
    await runs.save(record(task.runId, 'succeeded', [first, second]));
    await runs.save(record(leftOver, 'running', [first, second]));
    await runs.save(record(allRan, 'running', [first]));
    const { runner } = make(undefined, undefined, undefined, undefined, runs);
    for (const runId of [task.runId, leftOver, allRan]) await runner.execute({ ...task, runId, trigger: 'removed' });
    const of = async (runId: string) => (await runs.forRun(runId)).map((run) => [run.actionIndex, run.type, run.status, run.error]);
    expect(await of(task.runId)).to.deep.equal([
      [0, 'command', 'succeeded', null],
      [1, 'unknown', 'not_runnable', TRIGGER_REMOVED],
    ]);
    expect(await of(leftOver)).to.deep.equal([
      [0, 'command', 'failed', `${INTERRUPTED}; ${TRIGGER_REMOVED}`],
      [1, 'unknown', 'not_runnable', TRIGGER_REMOVED],
    ]);
    expect(await of(allRan)).to.deep.equal([[0, 'command', 'failed', `${INTERRUPTED}; ${TRIGGER_REMOVED}`]]);
  });

  describe("a run queued before a reload changed its trigger's `watch_path`", () => {
    /** `deploy` watching this path. */
    const deploy = (watchPath: string): Trigger[] => {
      const made = validateTriggers(
        [
          {
            name: 'deploy',
            watch_path: watchPath,
            enabled: true,
            actions: [
              { type: 'command', command: 'deploy {{body.branch}}' },
              { type: 'webhook', url: 'https://hooks.test/deployed' },
            ],
          },
        ],
        'test',
        triggerCatalog(),
      );
      expect(made.problems).to.deep.equal([]);
      return made.triggers;
    };
    const DROPPED = 'the trigger no longer watches the path of the request that fired it (reloaded since); its queued run is dropped';

    /** Fires `deploy` for a request at `path` (and the other names of its endpoint), watching `before`, reloads it watching `after`, then runs what was queued. */
    const firedThenMoved = async (path: string, before: string, after: string) => {
      const queue = new InMemoryTaskQueue();
      const requests = new InMemoryInboundRequestStore();
      const runs = new InMemoryActionRunRepository();
      const shell = new ScriptedShell();
      const forwarder = new RecordingForwarder();
      const logger = new RecordingLogger();
      let configured = deploy(before);
      const live: TriggerSource = { current: () => configured };
      const fire = new FireTriggers(live, requests, queue, new SequentialIds(), new FixedClock(), logger, new InMemoryTriggerLanes());
      const [watchPath, ...sameEndpointAs] = endpointPaths(path);
      const fired = await executed(fire, { watchPath, sameEndpointAs, request: snapshotRequest({ branch: 'main' }, {}, {}) });
      configured = deploy(after);
      const runner = new RunTrigger(live, runs, requests, shell, forwarder, new RecordingJobs(), new SequentialIds(), new FixedClock(), logger, {
        triggersDir: '/srv/triggers',
        commandTimeoutMs: 60_000,
        commandEnv: COMMAND_ENV,
        endpointPaths,
      });
      for (const queued of queue.tasks.splice(0)) await runner.execute(queued.payload as TriggerRunTask);
      return { fired, runs, shell, forwarder, logger, requests };
    };

    it('is dropped when the trigger no longer watches the path of the request that fired it: nothing runs, each action is recorded not run with why, and a warning says so', async () => {
      const cases: Array<[string, string, string]> = [
        ['/webhook', '/webhook', '/jobs/status'],
        ['/messaging/telegram/webhook', '/messaging/telegram/webhook', '/messaging/slack/webhook'],
        ['/messaging/telegram/webhook', '/messaging/webhook', '/messaging/register'],
      ];
      for (const [path, before, after] of cases) {
        const what = `${path}: ${before} -> ${after}`;
        const { fired, runs, shell, forwarder, logger, requests } = await firedThenMoved(path, before, after);
        expect(fired, what).to.deep.equal(['deploy']);
        expect(shell.commands, what).to.deep.equal([]);
        expect(forwarder.sent, what).to.deep.equal([]);
        const [stored] = requests.requests.values();
        expect(
          runs.runs.map((run) => [run.actionIndex, run.type, run.status, run.attempts, run.error, run.detail.requestId]),
          what,
        ).to.deep.equal([
          [0, 'command', 'not_runnable', 0, noLongerWatches(path), stored.id],
          [1, 'webhook', 'not_runnable', 0, noLongerWatches(path), stored.id],
        ]);
        expect(
          logger.entries.filter((e) => e.message === DROPPED).map((e) => [e.level, (e.fields as { watching?: string }).watching]),
          what,
        ).to.deep.equal([['warn', after]]);
      }
    });

    it("runs as before when the trigger still watches the request's endpoint (unchanged, or by another of its names)", async () => {
      const cases: Array<[string, string, string]> = [
        ['/webhook', '/webhook', '/webhook'],
        ['/messaging/telegram/webhook', '/messaging/telegram/webhook', '/messaging/webhook'],
        ['/messaging/telegram/webhook', '/messaging/webhook', '/messaging/telegram/webhook'],
      ];
      for (const [path, before, after] of cases) {
        const what = `${path}: ${before} -> ${after}`;
        const { fired, runs, shell, forwarder, logger } = await firedThenMoved(path, before, after);
        expect(fired, what).to.deep.equal(['deploy']);
        expect(shell.commands, what).to.have.length(1);
        expect(forwarder.sent, what).to.have.length(1);
        expect(
          runs.runs.map((run) => run.status),
          what,
        ).to.deep.equal(['succeeded', 'succeeded']);
        expect(
          logger.entries.map((e) => e.message),
          what,
        ).not.to.include(DROPPED);
      }
    });
  });

  describe("a run queued before a reload changed its trigger's `when`", () => {
    /** `deploy` with this `when` (absent: none), validated as the trigger file's. */
    const deploy = (when?: Record<string, unknown>): Trigger[] => {
      const made = validateTriggers(
        [
          {
            name: 'deploy',
            watch_path: '/webhook',
            enabled: true,
            ...(when === undefined ? {} : { when }),
            actions: [
              { type: 'command', command: 'deploy {{body.branch}}' },
              { type: 'webhook', url: 'https://hooks.test/deployed' },
            ],
          },
        ],
        'test',
        triggerCatalog(),
      );
      expect(made.problems).to.deep.equal([]);
      return made.triggers;
    };
    const DROPPED = "the trigger's when no longer matches the request that fired it (reloaded since); its queued run is dropped";

    /** Fires `deploy` for `body` under `before`, reloads `after`, then runs what was queued, as the worker would. */
    const firedThenReloaded = async (body: unknown, before: readonly Trigger[], after: readonly Trigger[]) => {
      const queue = new InMemoryTaskQueue();
      const requests = new InMemoryInboundRequestStore();
      const runs = new InMemoryActionRunRepository();
      const shell = new ScriptedShell();
      const forwarder = new RecordingForwarder();
      const logger = new RecordingLogger();
      let configured = before;
      const live: TriggerSource = { current: () => configured };
      const fire = new FireTriggers(live, requests, queue, new SequentialIds(), new FixedClock(), logger, new InMemoryTriggerLanes());
      const fired = await executed(fire, { watchPath: '/webhook', request: snapshotRequest(body, {}, {}) });
      configured = after;
      const runner = new RunTrigger(live, runs, requests, shell, forwarder, new RecordingJobs(), new SequentialIds(), new FixedClock(), logger, {
        triggersDir: '/srv/triggers',
        commandTimeoutMs: 60_000,
        commandEnv: COMMAND_ENV,
      });
      for (const queued of queue.tasks.splice(0)) await runner.execute(queued.payload as TriggerRunTask);
      return { fired, runs, shell, forwarder, logger, requests };
    };

    it('is dropped when the request no longer passes the `when` in force: nothing runs, each action is recorded not run with why, and a warning says so', async () => {
      const cases: Array<[string, Record<string, unknown> | undefined, Record<string, unknown>]> = [
        ['a `when` added', undefined, { 'body.branch': { equals: 'release' } }],
        ['the `when` tightened', { 'body.branch': { prefix: 'ma' } }, { 'body.branch': { equals: 'release' } }],
        ['a regex test changed', { 'body.branch': { regex: '^main$' } }, { 'body.branch': { regex: '^(fix|hotfix)/' } }],
      ];
      for (const [what, before, after] of cases) {
        const { fired, runs, shell, forwarder, logger, requests } = await firedThenReloaded({ branch: 'main' }, deploy(before), deploy(after));
        expect(fired, what).to.deep.equal(['deploy']);
        expect(shell.commands, what).to.deep.equal([]);
        expect(forwarder.sent, what).to.deep.equal([]);
        const [stored] = requests.requests.values();
        expect(
          runs.runs.map((run) => [run.actionIndex, run.type, run.status, run.attempts, run.error, run.detail.requestId]),
          what,
        ).to.deep.equal([
          [0, 'command', 'not_runnable', 0, WHEN_NO_LONGER_MATCHES, stored.id],
          [1, 'webhook', 'not_runnable', 0, WHEN_NO_LONGER_MATCHES, stored.id],
        ]);
        expect(
          logger.entries.filter((e) => e.message === DROPPED).map((e) => [e.level, (e.fields as { trigger?: string }).trigger]),
          what,
        ).to.deep.equal([['warn', 'deploy']]);
      }
    });

    it('runs as before when the request still passes the `when` in force (unchanged, loosened, or removed)', async () => {
      const cases: Array<[string, Record<string, unknown> | undefined, Record<string, unknown> | undefined]> = [
        ['unchanged', { 'body.branch': { equals: 'main' } }, { 'body.branch': { equals: 'main' } }],
        ['loosened', { 'body.branch': { equals: 'main' } }, { 'body.branch': { in: ['main', 'release'] } }],
        ['removed', { 'body.branch': { equals: 'main' } }, undefined],
        ['a 64-bit id kept exact', { 'body.id': { equals: '12345678901234567891' } }, { 'body.id': { in: ['12345678901234567891'] } }],
      ];
      for (const [what, before, after] of cases) {
        const body = what.startsWith('a 64-bit') ? parseExactJson('{"branch":"main","id":12345678901234567891}') : { branch: 'main' };
        const { fired, runs, shell, forwarder, logger } = await firedThenReloaded(body, deploy(before), deploy(after));
        expect(fired, what).to.deep.equal(['deploy']);
        expect(shell.commands, what).to.have.length(1);
        expect(forwarder.sent, what).to.have.length(1);
        expect(
          runs.runs.map((run) => run.status),
          what,
        ).to.deep.equal(['succeeded', 'succeeded']);
        expect(
          logger.entries.map((e) => e.message),
          what,
        ).not.to.include(DROPPED);
      }
    });

    it('a run under way (its worker died after the first action) that a reload filtered out: what ran keeps its record, the action left running is closed as interrupted with why, the rest is not run', async () => {
      const runs = new InMemoryActionRunRepository();
      const requests = new InMemoryInboundRequestStore();
      await requests.record(STORED);
      const configured = deploy({ 'body.branch': { equals: 'release' } });
      const [first, second] = configured[0].actions;
      const fingerprints = [actionFingerprint(first), actionFingerprint(second)];
      await runs.save({
        runId: task.runId,
        trigger: 'deploy',
        actionIndex: 0,
        type: 'command',
        status: 'running',
        attempts: 0,
        startedAt: new Date(),
        finishedAt: new Date(),
        error: null,
        detail: { requestId: REQUEST_ID, action: fingerprints[0], actions: fingerprints },
      });
      const shell = new ScriptedShell();
      const forwarder = new RecordingForwarder();
      await new RunTrigger(
        { current: () => configured },
        runs,
        requests,
        shell,
        forwarder,
        new RecordingJobs(),
        new SequentialIds(),
        new FixedClock(),
        new RecordingLogger(),
        { triggersDir: '/srv/triggers', commandTimeoutMs: 60_000, commandEnv: COMMAND_ENV },
      ).execute({ ...task, trigger: 'deploy' });
      expect(shell.commands).to.deep.equal([]);
      expect(forwarder.sent).to.deep.equal([]);
      expect(runs.runs.map((run) => [run.actionIndex, run.status, run.error])).to.deep.equal([
        [0, 'failed', `${INTERRUPTED}; ${WHEN_NO_LONGER_MATCHES}`],
        [1, 'not_runnable', WHEN_NO_LONGER_MATCHES],
      ]);
    });
  });
});
