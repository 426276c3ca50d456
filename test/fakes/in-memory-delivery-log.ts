import { createHash } from 'node:crypto';
import type { DeliveryLog, DeliveryRecord } from '../../src/ports/delivery-log.js';

/** DeliveryLog in a Map; passes the same contract suite as the database adapter. */
export class InMemoryDeliveryLog implements DeliveryLog {
  /** Recorded deliveries by id, with when they were recorded (the database's clock in the real log; this process's here). */
  readonly seen = new Map<string, { readonly event: string; readonly bodySha256?: string; receivedAt: Date }>();

  /** Atomic as the port requires: the check and the write happen in one synchronous step. */
  async recordFirst(deliveryId: string, event: string): Promise<boolean> {
    if (this.seen.has(deliveryId)) return false;
    this.seen.set(deliveryId, { event, receivedAt: new Date() });
    return true;
  }

  /** Atomic too: the checks of the id and the body and the write happen in one synchronous step. */
  async recordDelivery(deliveryId: string, event: string, body: Buffer): Promise<DeliveryRecord> {
    const bodySha256 = createHash('sha256').update(body).digest('hex');
    const known = this.seen.get(deliveryId);
    if (known) return known.bodySha256 === undefined || known.bodySha256 === bodySha256 ? 'redelivery' : 'repeat';
    if ([...this.seen.values()].some((entry) => entry.bodySha256 === bodySha256)) return 'repeat';
    this.seen.set(deliveryId, { event, bodySha256, receivedAt: new Date() });
    return 'first';
  }

  async recordedMoreThan(deliveryId: string, ageMs: number): Promise<boolean> {
    const entry = this.seen.get(deliveryId);
    return entry !== undefined && entry.receivedAt.getTime() < Date.now() - ageMs;
  }

  async recorded(deliveryId: string): Promise<boolean> {
    return this.seen.has(deliveryId);
  }

  async forget(deliveryId: string): Promise<void> {
    this.seen.delete(deliveryId);
  }

  async deleteOlderThan(cutoff: Date, limit: number): Promise<number> {
    const old = [...this.seen]
      .filter(([, entry]) => entry.receivedAt < cutoff)
      .sort(([, a], [, b]) => a.receivedAt.getTime() - b.receivedAt.getTime())
      .slice(0, limit);
    for (const [id] of old) this.seen.delete(id);
    return old.length;
  }

  /** Test hook: dates the delivery at `at`, as if recorded then. */
  backdate(deliveryId: string, at: Date): void {
    const entry = this.seen.get(deliveryId);
    if (entry) entry.receivedAt = new Date(at);
  }
}
