import type { InboundRequest, InboundRequestFilter, InboundRequestStore } from '../../src/ports/inbound-request-store.js';

const copy = (request: InboundRequest): InboundRequest => ({
  ...request,
  receivedAt: new Date(request.receivedAt),
  triggers: [...request.triggers],
  runs: request.runs.map((run) => ({ ...run })),
});

/** Earlier in the list's order (received time, then id, descending) than (`before`, `beforeId`); without an id, received before `before`. */
const isBefore = (request: InboundRequest, before: Date, beforeId: string | undefined): boolean => {
  const time = request.receivedAt.getTime() - before.getTime();
  return time < 0 || (time === 0 && beforeId !== undefined && request.id < beforeId);
};

export class InMemoryInboundRequestStore implements InboundRequestStore {
  readonly requests = new Map<string, InboundRequest>();
  /** Ids of the requests whose runs are not known to be queued. */
  readonly pending = new Set<string>();
  /** Makes the next record() fail, as a database that cannot be reached would. */
  failNext = false;

  async record(request: InboundRequest): Promise<boolean> {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('the request store is unavailable');
    }
    if (this.requests.has(request.id)) return false;
    this.requests.set(request.id, copy(request));
    if (request.runs.length > 0) this.pending.add(request.id);
    return true;
  }

  async undispatched(before: Date, limit: number): Promise<InboundRequest[]> {
    return [...this.requests.values()]
      .filter((request) => this.pending.has(request.id) && request.receivedAt < before)
      .sort((a, b) => a.receivedAt.getTime() - b.receivedAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, Math.max(Math.trunc(limit), 1))
      .map((request) => ({ ...copy(request), request: '' }));
  }

  async countUndispatched(): Promise<number> {
    return this.pending.size;
  }

  async markDispatched(ids: readonly string[]): Promise<void> {
    for (const id of ids) this.pending.delete(id);
  }

  async deleteOlderThan(cutoff: Date, limit: number): Promise<number> {
    const old = [...this.requests.values()]
      .filter((request) => request.receivedAt < cutoff && !this.pending.has(request.id))
      .sort((a, b) => a.receivedAt.getTime() - b.receivedAt.getTime())
      .slice(0, limit);
    for (const request of old) this.requests.delete(request.id);
    return old.length;
  }

  async find(id: string): Promise<InboundRequest | null> {
    const found = this.requests.get(id);
    return found === undefined ? null : copy(found);
  }

  async list(filter: InboundRequestFilter): Promise<InboundRequest[]> {
    return [...this.requests.values()]
      .filter((request) => filter.watchPath === undefined || request.watchPath === filter.watchPath)
      .filter((request) => filter.trigger === undefined || request.triggers.includes(filter.trigger))
      .filter((request) => filter.before === undefined || isBefore(request, filter.before, filter.beforeId))
      .sort((a, b) => b.receivedAt.getTime() - a.receivedAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .slice(0, Math.min(Math.max(Math.trunc(filter.limit), 1), 500))
      .map((request) => ({ ...copy(request), request: '' }));
  }
}
