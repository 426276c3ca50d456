import type { Trigger } from '../../domain/triggers/trigger.js';
import type { Clock } from '../../ports/clock.js';
import { type Headroom, NO_WAIT } from '../../ports/headroom.js';
import type { InboundRequest, InboundRequestStore } from '../../ports/inbound-request-store.js';
import type { Logger } from '../../ports/logger.js';
import type { TaskQueue } from '../../ports/task-queue.js';
import type { Timer } from '../../ports/timer.js';
import type { TriggerLanes } from '../../ports/trigger-lanes.js';
import { currentTriggers, type TriggerSource } from './trigger-source.js';

export const TRIGGER_RUN_QUEUE = 'trigger-run';
/**
 * Runs of triggers with `concurrency: N`: an ordered queue whose group is one of the trigger's N
 * lanes (`<trigger>#<lane>`). A lane runs one task at a time, in order, across every replica, so
 * at most N run at once; runs are dealt to the lanes round robin (TriggerLanes).
 */
export const TRIGGER_RUN_ORDERED_QUEUE = 'trigger-run-ordered';

/** One trigger fired by one request: the unit of durable background work. */
export interface TriggerRunTask {
  readonly runId: string;
  readonly trigger: string;
  readonly watchPath: string;
  readonly firedAt: string;
  /** The request that fired the trigger, stored once for all its triggers (InboundRequestStore). */
  readonly requestId?: string;
  /** The action a person approved: the run resumes there (ApprovalStore), running it this time. */
  readonly approvedAction?: number;
  /**
   * The lane of a run queued on TRIGGER_RUN_ORDERED_QUEUE (its group `<trigger>#<lane>`), so that
   * a run whose trigger's `concurrency` changed since can be moved (`relane`). Absent in runs
   * queued on the plain queue, and in those queued before it was written.
   */
  readonly lane?: number;
  /**
   * The types of the trigger's actions, in order, as it was configured when the run was queued:
   * what a run of a trigger removed before it ran records as not run (RunTrigger). Absent in
   * tasks queued before it was written, and in resumed runs (their actions' types then read
   * `unknown`).
   */
  readonly actionTypes?: readonly Trigger['actions'][number]['type'][];
  /**
   * Only in tasks queued before requests were stored once (upgrades): the RequestSnapshot as
   * JSON text, inline. Still read, never written.
   */
  readonly request?: string;
}

/** What dispatching needs of a stored request: its runs, and where and when it came. */
export type UndispatchedRequest = Pick<InboundRequest, 'id' | 'watchPath' | 'receivedAt' | 'runs'>;

/**
 * Queues one run of a trigger: on the plain queue, or on one of its lanes when it has a
 * `concurrency` (a trigger no longer configured goes to the plain queue: RunTrigger drops it).
 * `identity`: the task's id (the run's id, made by TaskQueue.newTaskId) or key (a resumed run's:
 * its approval's), so that the run is queued once however often it is dispatched or resumed.
 */
export const queueTriggerRun = async (
  queue: TaskQueue,
  lanes: TriggerLanes,
  trigger: Pick<Trigger, 'name' | 'concurrency'> | undefined,
  task: TriggerRunTask,
  identity: { readonly id: string } | { readonly key: string } | Record<string, never> = {},
): Promise<string | null> => {
  const { lane: _earlier, ...run } = task;
  if (trigger?.concurrency === undefined) return queue.enqueue(TRIGGER_RUN_QUEUE, run, identity);
  const lane = trigger.concurrency === 1 ? 0 : (await lanes.next(trigger.name)) % trigger.concurrency;
  return queue.enqueue(TRIGGER_RUN_ORDERED_QUEUE, { ...run, lane }, { group: `${trigger.name}#${lane}`, ...identity });
};

/**
 * A queued run whose trigger's `concurrency` changed since it was queued (a reload) would break
 * the new limit where it is: a run on the plain queue of a trigger that has a `concurrency` now,
 * or one in a lane the trigger no longer has (lane 2 of a trigger lowered to 2). Such a run is
 * queued again in one of the trigger's lanes, and its task here is to end without running it.
 * Runs are never moved out of a lane (a trigger whose `concurrency` was removed has no limit to
 * keep). The new task's key is the old task's id, so a move repeated (the task's worker died
 * after queueing it) stores it once. Says whether the run was moved (else it runs here).
 */
export const relane = async (
  queue: TaskQueue,
  lanes: TriggerLanes,
  trigger: Pick<Trigger, 'name' | 'concurrency'>,
  task: TriggerRunTask,
  from: { readonly taskId: string; readonly ordered: boolean },
): Promise<boolean> => {
  const limit = trigger.concurrency;
  if (limit === undefined) return false;
  // A run of the ordered queue without its lane was queued by an earlier version: kept where it is.
  if (from.ordered && (task.lane === undefined || task.lane < limit)) return false;
  await queueTriggerRun(queue, lanes, trigger, task, { key: `moved:${from.taskId}` });
  return true;
};

/** Most requests one pass queues the runs of: one insert of tasks per queue (up to 500 rows), one update of the requests. */
export const PASS_SIZE = 500;
/** Most undispatched requests one sweep reads. */
export const SWEEP_PAGE = 1000;
/** How often stored requests left undispatched are looked for (a replica that stopped between storing and queueing). */
export const SWEEP_INTERVAL_MS = 30_000;
/** A request is left behind when it is still undispatched this long after it came: its replica would have queued it by now. */
export const LEFT_BEHIND_MS = 30_000;

/**
 * Requests coming in since the previous pass from which on the service counts as taking requests
 * in fast: the next pass then waits PASS_GAP_MS, and the requests of that time share it.
 */
export const BUSY_ARRIVALS = 50;
export const PASS_GAP_MS = 1000;
/** Most requests waiting for a pass in memory; the others wait in the database, undispatched, for a sweep. */
export const MAX_PENDING = 20_000;

/**
 * Queues the runs of stored requests, after their callers were answered (FireTriggers stores the
 * request, naming its runs, before the answer: that is what makes the request durable).
 *
 * Each pass takes up to PASS_SIZE requests in the order they were stored, queues all their runs
 * (each task's id is its run's id, so a run dispatched twice is queued once) and marks them
 * dispatched. A pass waits for the service's Headroom first. While requests come in fast
 * (BUSY_ARRIVALS or more since the previous pass), passes are PASS_GAP_MS apart: the requests of
 * a second share one insert of tasks, and the database's time goes to the callers, who are
 * answered at the cost of the request's insert alone. The tasks would wait for room to run in
 * any case. Idle, a request's runs are queued right after it is stored, and a backlog is
 * queued pass after pass once requests slow down. At most MAX_PENDING requests wait in memory;
 * the rest wait in the database, undispatched, and are read back by a sweep.
 *
 * What a stop between storing and queueing leaves (a crash, or requests waiting for a pass at a
 * graceful stop) is found by a sweep: at start (everything stored before), and every
 * SWEEP_INTERVAL_MS for requests undispatched for LEFT_BEHIND_MS (another replica's).
 */
export class DispatchTriggerRuns {
  /** Stored requests whose runs are still to be queued, in the order they were stored. */
  readonly #pending = new Map<string, UndispatchedRequest>();
  #loop: Promise<void> | undefined;
  #stopped = false;
  /** Stopping: no more sweeps; what is pending is still queued. */
  #closing = false;
  #cancelSweep: (() => void) | undefined;
  /** Set when the last sweep read a full page: the next one follows once its requests are queued. */
  #sweepAgain: Date | undefined;
  /** Requests recorded since the last pass began. */
  #arrived = 0;
  /** Set when a request was left out of memory (MAX_PENDING): a sweep reads it once the memory is empty. */
  #overflow = false;

  constructor(
    private readonly triggers: TriggerSource,
    private readonly requests: InboundRequestStore,
    private readonly queue: TaskQueue,
    private readonly lanes: TriggerLanes,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly headroom: Headroom = NO_WAIT,
    /** Sweeps every SWEEP_INTERVAL_MS once started; without a timer, only at start. */
    private readonly timer?: Timer,
  ) {}

  /** A request was stored undispatched: its runs are queued by the next pass. */
  recorded(request: UndispatchedRequest): void {
    if (request.runs.length === 0) return;
    this.#arrived++;
    if (this.#pending.size >= MAX_PENDING) {
      this.#overflow = true;
      return;
    }
    this.#pending.set(request.id, request);
    this.#kick();
  }

  /** Queues the runs of these stored requests now, without waiting for room (a replay). */
  async now(requests: readonly UndispatchedRequest[]): Promise<void> {
    const failed = await this.#pass(requests);
    if (failed > 0) throw new Error(`${failed} trigger run(s) could not be queued; they will be queued when the service sweeps`);
  }

  /** Resolves once every request recorded so far has had its pass. */
  async dispatched(): Promise<void> {
    while (this.#loop !== undefined) await this.#loop;
  }

  /** Sweeps what an earlier stop left (in the background), then every SWEEP_INTERVAL_MS. */
  start(): void {
    this.#stopped = false;
    this.#closing = false;
    this.#sweep(this.#everythingSoFar());
    const every = (): void => {
      this.#cancelSweep = this.timer?.after(SWEEP_INTERVAL_MS, () => {
        this.#sweep(new Date(this.clock.now().getTime() - LEFT_BEHIND_MS));
        every();
      });
    };
    every();
  }

  /**
   * Graceful stop: sweeps no more, queues the runs of the requests recorded so far, then takes
   * no more. A request recorded later, or whose runs could not be queued, stays stored,
   * undispatched, for the next start.
   */
  async stop(): Promise<void> {
    this.#closing = true;
    this.#cancelSweep?.();
    await this.dispatched();
    this.#stopped = true;
  }

  /** A bound past every request stored so far (received times are in milliseconds). */
  #everythingSoFar(): Date {
    return new Date(this.clock.now().getTime() + 1);
  }

  #sweep(before: Date): void {
    if (this.#closing) return;
    this.requests.undispatched(before, SWEEP_PAGE).then(
      (page) => {
        for (const request of page) if (!this.#pending.has(request.id)) this.#pending.set(request.id, request);
        this.#sweepAgain = page.length === SWEEP_PAGE ? before : undefined;
        if (page.length > 0) this.logger.info({ requests: page.length }, 'queueing the trigger runs of stored requests left undispatched');
        this.#kick();
      },
      (error: unknown) => this.logger.warn({ err: error }, 'looking for requests left undispatched failed; the next sweep tries again'),
    );
  }

  #kick(): void {
    if (this.#loop !== undefined || this.#stopped || this.#pending.size === 0) return;
    this.#loop = this.#run()
      .catch((error: unknown) => this.logger.error({ err: error }, 'queueing trigger runs stopped unexpectedly; a sweep queues what is left'))
      .finally(() => {
        this.#loop = undefined;
        if (this.#pending.size > 0) this.#kick();
        else if (this.#overflow) {
          this.#overflow = false;
          this.#sweep(this.#everythingSoFar());
        } else if (this.#sweepAgain !== undefined) this.#sweep(this.#sweepAgain);
      });
  }

  async #run(): Promise<void> {
    let dispatchedAny = false;
    while (this.#pending.size > 0 && !this.#stopped) {
      await this.headroom.wait();
      const arrived = this.#arrived;
      this.#arrived = 0;
      const batch: UndispatchedRequest[] = [];
      for (const [id, request] of this.#pending) {
        if (batch.length === PASS_SIZE) break;
        batch.push(request);
        this.#pending.delete(id);
      }
      const failed = await this.#pass(batch);
      if (failed < batch.length) dispatchedAny = true;
      const timer = this.timer;
      if (this.#pending.size > 0 && arrived >= BUSY_ARRIVALS && timer !== undefined && !this.#closing)
        await new Promise<void>((resolve) => timer.after(PASS_GAP_MS, resolve));
    }
    // A full sweep page that failed as a whole is not read again at once: the next sweep does.
    if (!dispatchedAny) this.#sweepAgain = undefined;
  }

  /** Queues every run of the requests and marks the requests whose runs all are; returns how many requests failed. */
  async #pass(batch: readonly UndispatchedRequest[]): Promise<number> {
    const byName = new Map(currentTriggers(this.triggers).map((trigger) => [trigger.name, trigger]));
    const perRequest: Array<Promise<unknown>> = [];
    for (const request of batch) {
      const firedAt = request.receivedAt.toISOString();
      const runs: Array<Promise<unknown>> = [];
      for (const { trigger, runId } of request.runs) {
        // In order: the lane counter is read run by run, and tasks are queued in the runs' order.
        const configured = byName.get(trigger);
        const run = queueTriggerRun(
          this.queue,
          this.lanes,
          configured,
          {
            runId,
            trigger,
            watchPath: request.watchPath,
            firedAt,
            requestId: request.id,
            ...(configured === undefined ? {} : { actionTypes: configured.actions.map((action) => action.type) }),
          },
          { id: runId },
        );
        runs.push(run);
        if (configured?.concurrency !== undefined) await run.catch(() => undefined);
      }
      perRequest.push(Promise.all(runs));
    }
    const outcomes = await Promise.allSettled(perRequest);
    const done = batch.filter((_, i) => outcomes[i].status === 'fulfilled').map((request) => request.id);
    const failed = batch.length - done.length;
    if (failed > 0) {
      const reason = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
      this.logger.warn({ err: reason.reason, requests: failed }, 'queueing trigger runs failed; they stay stored and are queued by a later sweep');
    }
    if (done.length > 0)
      await this.requests.markDispatched(done).catch((error: unknown) => {
        // Queued but not marked: a sweep dispatches them again, and their tasks' ids keep them single.
        this.logger.warn({ err: error, requests: done.length }, 'recording queued trigger runs failed; a later sweep sees they are queued');
      });
    return failed;
  }
}
