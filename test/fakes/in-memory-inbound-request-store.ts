import type { InboundRequest, InboundRequestStore } from '../../src/ports/inbound-request-store.js';

export class InMemoryInboundRequestStore implements InboundRequestStore {
  readonly requests = new Map<string, InboundRequest>();
  /** Makes the next record() fail, as a database that cannot be reached would. */
  failNext = false;

  async record(request: InboundRequest): Promise<void> {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('the request store is unavailable');
    }
    if (!this.requests.has(request.id))
      this.requests.set(request.id, { ...request, receivedAt: new Date(request.receivedAt), triggers: [...request.triggers] });
  }

  async deleteOlderThan(cutoff: Date, limit: number): Promise<number> {
    const old = [...this.requests.values()]
      .filter((request) => request.receivedAt < cutoff)
      .sort((a, b) => a.receivedAt.getTime() - b.receivedAt.getTime())
      .slice(0, limit);
    for (const request of old) this.requests.delete(request.id);
    return old.length;
  }

  async find(id: string): Promise<InboundRequest | null> {
    const found = this.requests.get(id);
    return found === undefined ? null : { ...found, receivedAt: new Date(found.receivedAt), triggers: [...found.triggers] };
  }
}
