/**
 * Remembers accepted webhook deliveries so that a redelivery is not run twice: code-host
 * deliveries by their delivery id, chat updates as `<channel>:update:<update_id>`. Entries
 * must be kept longer than a platform redelivers (a day at most for the chat platforms).
 */
export interface DeliveryLog {
  /** Records the delivery; false when it was recorded before (a redelivery). Atomic across replicas. */
  recordFirst(deliveryId: string, event: string): Promise<boolean>;
  /** Forgets a delivery whose processing could not be stored, so a redelivery is accepted. */
  forget(deliveryId: string): Promise<void>;
}
