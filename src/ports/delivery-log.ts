/**
 * Remembers accepted webhook deliveries so that a redelivery is not run twice: code-host
 * deliveries by their delivery id, chat updates as `<channel>:update:<update_id>`. Entries
 * must be kept longer than a platform redelivers (a day at most for the chat platforms).
 */
export interface DeliveryLog {
  /**
   * Records the delivery (ids up to 200 characters, events up to 100; callers check the
   * lengths); false when it was recorded before (a redelivery). Atomic across replicas:
   * of deliveries with one id recorded at once anywhere, exactly one gets true.
   * @throws when the store fails (nothing is recorded then).
   */
  recordFirst(deliveryId: string, event: string): Promise<boolean>;
  /** Forgets a delivery whose processing could not be stored, so a redelivery is accepted. Idempotent: an unknown id is no error. */
  forget(deliveryId: string): Promise<void>;
  /**
   * Retention: forgets up to `limit` deliveries recorded before `cutoff`, oldest first, and
   * returns how many (fewer than `limit`: none is left). A forgotten delivery would be run
   * again if redelivered: the cutoff must lie further back than any platform redelivers.
   */
  deleteOlderThan(cutoff: Date, limit: number): Promise<number>;
}
