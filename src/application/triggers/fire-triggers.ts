import type { RequestSnapshot } from '../../domain/templates/request-snapshot.js';
import { matchTriggers } from '../../domain/triggers/match-triggers.js';
import type { Clock } from '../../ports/clock.js';
import type { IdGenerator } from '../../ports/id-generator.js';
import type { InboundRequestStore } from '../../ports/inbound-request-store.js';
import type { Logger } from '../../ports/logger.js';
import type { TaskQueue } from '../../ports/task-queue.js';
import { currentTriggers, type TriggerSource } from './trigger-source.js';

export const TRIGGER_RUN_QUEUE = 'trigger-run';

/** One trigger fired by one request: the unit of durable background work. */
export interface TriggerRunTask {
  readonly runId: string;
  readonly trigger: string;
  readonly watchPath: string;
  readonly firedAt: string;
  /** The request that fired the trigger, stored once for all its triggers (InboundRequestStore). */
  readonly requestId?: string;
  /**
   * Only in tasks queued before requests were stored once (upgrades): the RequestSnapshot as
   * JSON text, inline. Still read, never written.
   */
  readonly request?: string;
}

export interface FireTriggersInput {
  /** The called endpoint's path without `/api`. */
  readonly watchPath: string;
  /** Other watch paths naming the same endpoint (a channel's endpoint and its alias path): their triggers fire too, each once. */
  readonly sameEndpointAs?: readonly string[];
  /** The request, or how to take it: taken only when a trigger fires (most requests fire none). */
  readonly request: RequestSnapshot | (() => RequestSnapshot);
}

/**
 * SPEC 6.1: after authentication, every enabled trigger watching the endpoint gets a
 * durable task; the caller is answered once the tasks are stored, never after the actions.
 * The request is stored once, before the tasks, which refer to it by id.
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
  ) {}

  /** Whether any enabled trigger watches one of the paths: when none does, firing can be skipped entirely. */
  watches(watchPaths: string | readonly string[]): boolean {
    return matchTriggers(currentTriggers(this.triggers), watchPaths).length > 0;
  }

  async execute(input: FireTriggersInput): Promise<string[]> {
    // One snapshot for the whole request: a reload meanwhile does not change what it fires.
    const matched = matchTriggers(currentTriggers(this.triggers), [input.watchPath, ...(input.sameEndpointAs ?? [])]);
    if (matched.length === 0) return [];
    const receivedAt = this.clock.now();
    const firedAt = receivedAt.toISOString();
    const names = matched.map((trigger) => trigger.name);
    const requestId = this.ids.next();
    const request = JSON.stringify(typeof input.request === 'function' ? input.request() : input.request);
    await this.requests.record({ id: requestId, watchPath: input.watchPath, receivedAt, request, triggers: names });
    await Promise.all(
      matched.map((trigger) => {
        const task: TriggerRunTask = { runId: this.ids.next(), trigger: trigger.name, watchPath: input.watchPath, firedAt, requestId };
        return this.queue.enqueue(TRIGGER_RUN_QUEUE, task);
      }),
    );
    this.logger.info({ watchPath: input.watchPath, triggers: names, requestId }, 'triggers fired');
    return names;
  }
}
