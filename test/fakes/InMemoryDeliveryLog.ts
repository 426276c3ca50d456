import type { DeliveryLog } from '../../src/ports/DeliveryLog.js';

/** DeliveryLog in a Map; passes the same contract suite as the database adapter. */
export class InMemoryDeliveryLog implements DeliveryLog {
  /** Recorded deliveries by id. */
  readonly seen = new Map<string, { readonly event: string }>();

  /** Atomic as the port requires: the check and the write happen in one synchronous step. */
  async recordFirst(deliveryId: string, event: string): Promise<boolean> {
    if (this.seen.has(deliveryId)) return false;
    this.seen.set(deliveryId, { event });
    return true;
  }

  async forget(deliveryId: string): Promise<void> {
    this.seen.delete(deliveryId);
  }
}
