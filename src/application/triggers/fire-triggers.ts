import type { Approval } from '../../domain/approvals/approval.js';
import { DomainError } from '../../domain/errors/domain-error.js';
import { type FingerprintMac, isFingerprintOf } from '../../domain/triggers/action-fingerprint.js';
import { parseStoredSnapshot, type RequestSnapshot } from '../../domain/templates/request-snapshot.js';
import { filterTriggers, matchTriggers, watchesAny } from '../../domain/triggers/match-triggers.js';
import { passesWhen } from '../../domain/triggers/trigger-filter.js';
import type { Trigger } from '../../domain/triggers/trigger.js';
import type { Clock } from '../../ports/clock.js';
import type { IdGenerator } from '../../ports/id-generator.js';
import type { InboundRequest, InboundRequestStore } from '../../ports/inbound-request-store.js';
import type { Logger } from '../../ports/logger.js';
import type { TaskQueue } from '../../ports/task-queue.js';
import { currentTriggers, type TriggerSource } from './trigger-source.js';
import type { TriggerLanes } from '../../ports/trigger-lanes.js';
import { DispatchTriggerRuns, queueTriggerRun } from './dispatch-trigger-runs.js';

export { TRIGGER_RUN_ORDERED_QUEUE, TRIGGER_RUN_QUEUE, type TriggerRunTask } from './dispatch-trigger-runs.js';

export interface FireTriggersInput {
  /** The called endpoint's path without `/api`. */
  readonly watchPath: string;
  /** Other watch paths naming the same endpoint (a channel's endpoint and its alias path): their triggers fire too, each once. */
  readonly sameEndpointAs?: readonly string[];
  /** The request, or how to take it: taken only when a trigger fires (most requests fire none). */
  readonly request: RequestSnapshot | (() => RequestSnapshot);
  /**
   * Store the request in the delivery log even when no trigger fires: code-host and chat
   * deliveries are all kept (the admin UI and `deliveries list` show every one).
   */
  readonly keep?: boolean;
  /**
   * The platform's own id of the delivery (`telegram:update:…`, a code-host delivery id): the
   * stored request gets the id of that name, so a delivery fired again (a retry after a stop
   * between recording the delivery and storing its request) stores and queues nothing twice.
   */
  readonly deliveryKey?: string;
}

/** Where FireTriggers makes a request durable before its answer when it can (JournaledIntake). */
export interface RequestIntake {
  /** True once the request is durable there, its runs to be queued by the intake; false when it is not taken (then the store takes it). */
  take(request: InboundRequest): Promise<boolean>;
  /** Resolves once every request taken so far is stored and handed to the dispatch. */
  imported(): Promise<void>;
}

/** No intake: every request is stored in the store before its answer. */
export const NO_INTAKE: RequestIntake = { take: async () => false, imported: async () => undefined };

/**
 * SPEC 6.1: after authentication, every enabled trigger watching the endpoint gets a durable
 * run; the caller is answered once the request is stored, naming its runs, never after the
 * actions. The runs are queued as tasks right after (DispatchTriggerRuns), each referring to the
 * request by id; a stop in between leaves the request stored, and its runs are queued at the next
 * start. A trigger with a `when` fires only when the request passes its tests.
 * Returns the names of the triggers that fired, in file order.
 */
export class FireTriggers {
  constructor(
    private readonly triggers: TriggerSource,
    private readonly requests: InboundRequestStore,
    private readonly queue: TaskQueue,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** Deals the runs of triggers with `concurrency` to their lanes. */
    private readonly lanes: TriggerLanes,
    /** Queues the runs of stored requests; by default one that starts them at once and never sweeps. */
    readonly dispatch: DispatchTriggerRuns = new DispatchTriggerRuns(triggers, requests, queue, lanes, clock, logger),
    /**
     * Every watch path naming the endpoint of a stored request's path, its own first (a channel's
     * endpoint and its alias path): a replay fires the triggers watching any of them, as the
     * request did. By default only the path itself.
     */
    private readonly endpointPaths: (watchPath: string) => readonly string[] = (watchPath) => [watchPath],
    /** Where a request is made durable before its answer when it can be, instead of the store (JournaledIntake); by default nowhere. */
    private readonly intake: RequestIntake = NO_INTAKE,
    /** The installation's key the runs' fingerprints are made with (RunTriggerSettings.fingerprintKey); the same one, or none in both. */
    private readonly fingerprintKey?: FingerprintMac,
  ) {}

  /** Resolves once the runs of every request fired so far are queued (or failed to be: a sweep retries them). */
  async dispatched(): Promise<void> {
    await this.intake.imported();
    return this.dispatch.dispatched();
  }

  /** Whether any enabled trigger watches one of the paths: when none does, firing can be skipped entirely. */
  watches(watchPaths: string | readonly string[]): boolean {
    return watchesAny(currentTriggers(this.triggers), watchPaths);
  }

  async execute(input: FireTriggersInput): Promise<string[]> {
    // One snapshot for the whole request: a reload meanwhile does not change what it fires.
    const watching = matchTriggers(currentTriggers(this.triggers), [input.watchPath, ...(input.sameEndpointAs ?? [])]);
    if (watching.length === 0 && input.keep !== true) return [];
    const snapshot = typeof input.request === 'function' ? input.request() : input.request;
    const matched = filterTriggers(watching, snapshot);
    if (matched.length === 0 && watching.length > 0)
      this.logger.debug({ watchPath: input.watchPath, filtered: watching.map((trigger) => trigger.name) }, 'no trigger fired: their when did not match');
    if (matched.length === 0 && input.keep !== true) return [];
    const request = JSON.stringify(snapshot);
    const given = input.deliveryKey === undefined ? undefined : this.ids.named(input.deliveryKey);
    const { requestId, earlier } = await this.fire(matched, input.watchPath, request, null, false, given);
    if (earlier !== undefined) {
      this.logger.info({ watchPath: input.watchPath, requestId }, 'delivery stored before: its triggers are not fired again');
      return [...earlier];
    }
    if (matched.length > 0) this.logger.info({ watchPath: input.watchPath, triggers: matched.map((trigger) => trigger.name), requestId }, 'triggers fired');
    return matched.map((trigger) => trigger.name);
  }

  /**
   * Fires again the triggers a stored request fired, with that request as it was stored (byte for
   * byte), recorded as a new request that replays it. The triggers are taken as they are
   * configured now, and fire only where that request would fire them now: each must still be
   * enabled, watch the stored request's endpoint (its path, or another naming the same endpoint:
   * a channel's alias path) and pass its current `when`. An operator who tightened a filter, or
   * moved a trigger to another endpoint, after a hostile request cannot have it run that request
   * again by replaying it. A trigger that no longer fires is skipped and named, with the reason.
   * With a `key` (the admin page's form sends one per rendered form) the replay is recorded
   * under the id of `replay:<id>:<key>`: the same form sent again (a double click, a second tab)
   * replays nothing more and answers the replay it made, `again`.
   * @throws DomainError not_found when no request with this id is stored (any more).
   */
  async replay(requestId: string, key?: string): Promise<ReplayOutcome> {
    // A request answered from the intake's journal is found once it is stored.
    await this.intake.imported();
    const stored = await this.requests.find(requestId);
    if (stored === null) throw new DomainError('not_found', `No stored request with id ${requestId} (never stored, or removed by retention)`);
    const configured = new Map(currentTriggers(this.triggers).map((trigger) => [trigger.name, trigger]));
    const paths = this.endpointPaths(stored.watchPath);
    // Read only when a trigger has a `when`; exact, so that a filter on a 64-bit id compares its digits.
    let snapshot: RequestSnapshot | undefined;
    const request = (): RequestSnapshot => {
      snapshot ??= parseStoredSnapshot(stored.request);
      return snapshot;
    };
    const fired: Trigger[] = [];
    const skipped: SkippedTrigger[] = [];
    for (const name of stored.triggers) {
      const trigger = configured.get(name);
      if (trigger === undefined || !trigger.enabled) skipped.push({ trigger: name, reason: 'disabled or removed' });
      else if (matchTriggers([trigger], paths).length === 0) skipped.push({ trigger: name, reason: `no longer watches ${stored.watchPath}` });
      else if (filterTriggers([trigger], request()).length === 0) skipped.push({ trigger: name, reason: 'its when no longer matches' });
      else fired.push(trigger);
    }
    const outcome = { skipped: skipped.map((skip) => skip.trigger), skippedWhy: skipped };
    if (fired.length === 0) return { requestId: null, fired: [], ...outcome };
    // Queued before this answers: a replay from the CLI ends its process right after.
    const given = key === undefined ? undefined : this.ids.named(`replay:${stored.id}:${key}`);
    const replay = await this.fire(fired, stored.watchPath, stored.request, stored.id, true, given);
    if (replay.earlier !== undefined) {
      this.logger.info(
        { watchPath: stored.watchPath, requestId: replay.requestId, replayOf: stored.id },
        'replay made before: its triggers are not fired again',
      );
      return { requestId: replay.requestId, fired: [...replay.earlier], ...outcome, again: true };
    }
    this.logger.info(
      { watchPath: stored.watchPath, triggers: fired.map((trigger) => trigger.name), requestId: replay.requestId, replayOf: stored.id },
      'triggers replayed',
    );
    return { requestId: replay.requestId, fired: fired.map((trigger) => trigger.name), ...outcome };
  }

  /**
   * Stores the request once, naming the runs it starts (each run's id is its task's id, made
   * now: the runs of one lane keep the order of their requests), and hands it to the dispatch,
   * which queues the runs after the caller is answered: the caller waits for one insert, shared
   * by the requests stored at the same moment, instead of two. When the request cannot be stored
   * the caller gets an error and retries, and nothing was queued.
   */
  private async fire(
    triggers: readonly Trigger[],
    watchPath: string,
    request: string,
    replayOf: string | null,
    now = false,
    id?: string,
  ): Promise<{ requestId: string; earlier?: readonly string[] }> {
    const receivedAt = this.clock.now();
    const requestId = id ?? this.ids.next();
    const runs = triggers.map((trigger) => ({ trigger: trigger.name, runId: this.queue.newTaskId() }));
    const stored = { id: requestId, watchPath, receivedAt, request, triggers: runs.map((run) => run.trigger), runs, replayOf };
    // A request of its own id (no platform's), fired now and not replayed, whose runs keep no
    // order across requests, may be made durable in the intake's journal instead: stored in the
    // database and its runs queued right after, in the background (JournaledIntake).
    const unordered = id === undefined && replayOf === null && !now && runs.length > 0 && !triggers.some((trigger) => trigger.concurrency !== undefined);
    if (unordered && (await this.intake.take(stored))) return { requestId };
    if (!(await this.requests.record(stored))) {
      // Stored by an earlier delivery of the same id, whose runs were queued then, or are by a
      // sweep (as after any stop between storing and queueing).
      return { requestId, earlier: (await this.requests.find(requestId))?.triggers ?? [] };
    }
    if (runs.length === 0) return { requestId };
    // Without the request's text: requests waiting for a pass under load hold only their runs.
    const undispatched = { id: requestId, watchPath, receivedAt, runs };
    if (now) await this.dispatch.now([undispatched]);
    // A trigger with `concurrency` runs its lanes in firing order across replicas, and the queue
    // orders by the time a task was stored: its runs are queued before the answer, so that a
    // request sent after this one's answer, to any replica, is queued after it. Should that fail,
    // the request is stored all the same and a sweep queues its runs: it was accepted.
    else if (triggers.some((trigger) => trigger.concurrency !== undefined)) await this.dispatch.now([undispatched]).catch(() => undefined);
    else this.dispatch.recorded(undispatched);
    return { requestId };
  }

  /**
   * Queues the rest of a run whose action a person approved: it resumes at that action, on the
   * same queue (and lanes) as its trigger's runs. Returns whether the approved action runs: a
   * reload may since have removed or disabled the trigger, or changed or removed the action
   * (`action`: its fingerprint, recorded when it asked; without one, the action at its index),
   * moved the trigger so that it no longer watches the path of the request that fired the run,
   * or changed its `when` so that that request no longer passes it, and then nothing runs — the run is queued all the same, and closes the record that waited.
   * @throws when the stored request cannot be read (a trigger with a `when` only): the decision
   * is stored, and deciding again queues the run (DecideApproval).
   */
  async resume(approval: Approval, action?: string): Promise<ResumeOutcome> {
    const trigger = currentTriggers(this.triggers).find((candidate) => candidate.name === approval.trigger);
    let outcome = resumeOutcome(trigger, approval, action, this.fingerprintKey);
    // As the resumed run tests them (RunTrigger): the request's endpoint, by any of its names, then `when`.
    if (outcome === 'runs' && trigger !== undefined && !this.endpointPaths(approval.watchPath).includes(trigger.watchPath)) outcome = 'watch-changed';
    if (outcome === 'runs' && trigger?.when !== undefined && !(await this.#passesWhenNow(trigger, approval))) outcome = 'when-changed';
    if (outcome !== 'runs') {
      // Queued all the same: its run runs nothing, and closes the record that waited (RunTrigger).
      this.logger.warn({ trigger: approval.trigger, runId: approval.runId, action: approval.actionIndex }, NOTHING_RUNS[outcome]);
    }
    await queueTriggerRun(
      this.queue,
      this.lanes,
      trigger?.enabled === true ? trigger : undefined,
      {
        runId: approval.runId,
        trigger: approval.trigger,
        watchPath: approval.watchPath,
        firedAt: approval.firedAt,
        ...(approval.requestId === null ? {} : { requestId: approval.requestId }),
        approvedAction: approval.actionIndex,
      },
      // Queued once per approval, however often it is resumed (see DecideApproval).
      { key: `approved:${approval.id}` },
    );
    return outcome;
  }

  /**
   * Whether the request that fired an approved run passes its trigger's `when` as configured
   * now, as the resumed run tests it (RunTrigger drops it otherwise). A request no longer stored
   * (or a run of none) is not held against it: the run records why it cannot run.
   */
  async #passesWhenNow(trigger: Trigger, approval: Approval): Promise<boolean> {
    if (approval.requestId === null) return true;
    const stored = await this.requests.find(approval.requestId);
    return stored === null || passesWhen(trigger.when, parseStoredSnapshot(stored.request));
  }
}

/**
 * What resuming an approved run does: `runs` (it goes on at the approved action), or why nothing
 * runs — a reload since removed the trigger, disabled it, changed or removed the action, changed
 * its `watch_path` so that it no longer watches the path of the request that fired the run, or
 * changed its `when` so that that request no longer passes it.
 */
export type ResumeOutcome = 'runs' | 'trigger-removed' | 'trigger-disabled' | 'action-changed' | 'watch-changed' | 'when-changed';

/** Whether the approved action runs as `trigger` is now (undefined: no longer configured). */
const resumeOutcome = (trigger: Trigger | undefined, approval: Approval, action: string | undefined, key: FingerprintMac | undefined): ResumeOutcome => {
  if (trigger === undefined) return 'trigger-removed';
  if (!trigger.enabled) return 'trigger-disabled';
  // Found by what it is, as the resumed run finds it (RunTrigger's matchRecords); a record from
  // before fingerprints were kept, by its place.
  const there =
    action === undefined ? approval.actionIndex < trigger.actions.length : trigger.actions.some((candidate) => isFingerprintOf(action, candidate, key));
  return there ? 'runs' : 'action-changed';
};

const NOTHING_RUNS: Record<Exclude<ResumeOutcome, 'runs'>, string> = {
  'trigger-removed': 'approved action of a trigger no longer configured; nothing runs',
  'trigger-disabled': 'approved action of a trigger disabled since; nothing runs',
  'action-changed': 'approved action changed or removed since it asked; nothing runs',
  'watch-changed': 'approved action of a trigger that no longer watches the path of the request that fired it (reloaded since); nothing runs',
  'when-changed': 'approved action of a trigger whose when no longer matches the request that fired it (reloaded since); nothing runs',
};

/** A trigger a replay did not fire, and why: `disabled or removed`, `no longer watches <path>`, `its when no longer matches`. */
export interface SkippedTrigger {
  readonly trigger: string;
  readonly reason: string;
}

/** What a replay did: the new stored request (null when no trigger could fire), the triggers fired and those skipped. */
export interface ReplayOutcome {
  readonly requestId: string | null;
  readonly fired: readonly string[];
  /** Triggers the stored request fired that would not fire for it now, by name (as before reasons were given). */
  readonly skipped: readonly string[];
  /** The same triggers, in the same order, each with the reason it no longer fires. */
  readonly skippedWhy: readonly SkippedTrigger[];
  /** True when the replay of this key was made before: nothing was fired now, `requestId` and `fired` are that replay's. */
  readonly again?: boolean;
}
