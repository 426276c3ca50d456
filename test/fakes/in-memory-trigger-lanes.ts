import type { TriggerLanes } from '../../src/ports/trigger-lanes.js';

export class InMemoryTriggerLanes implements TriggerLanes {
  readonly counters = new Map<string, number>();

  async next(trigger: string): Promise<number> {
    const next = (this.counters.get(trigger) ?? -1) + 1;
    this.counters.set(trigger, next);
    return next;
  }
}
