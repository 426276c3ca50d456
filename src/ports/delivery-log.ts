/**
 * How a code-host delivery was recorded (DeliveryLog.recordDelivery): `first` (stored now);
 * `redelivery`, the platform's own (this id was recorded before with this body, or before bodies
 * were recorded); `repeat`, this body recorded under another id or this id with another body
 * (a captured delivery sent again): never run.
 */
export type DeliveryRecord = 'first' | 'redelivery' | 'repeat';

/**
 * Remembers accepted webhook deliveries so that a redelivery is not run twice: code-host
 * deliveries by their delivery id and the SHA-256 of their signed body, chat updates as
 * `<channel>:update:<update_id>`; and the chat replies the gateway began to send, as
 * `<channel>:reply:<task id>`, so that a chat task run again does not send its reply twice.
 * Entries must be kept longer than a platform redelivers (a day at most for the chat platforms).
 */
export interface DeliveryLog {
  /**
   * Records the delivery (ids up to 200 characters, events up to 100; callers check the
   * lengths); false when it was recorded before (a redelivery). Atomic across replicas:
   * of deliveries with one id recorded at once anywhere, exactly one gets true.
   * @throws when the store fails (nothing is recorded then).
   */
  recordFirst(deliveryId: string, event: string): Promise<boolean>;
  /**
   * Records a code-host delivery with its signed body (the raw bytes; kept as their SHA-256),
   * unless its id or its body was recorded before (see DeliveryRecord). Atomic across replicas:
   * of deliveries sharing an id or a body recorded at once anywhere, exactly one is `first`.
   * `forget` and `deleteOlderThan` forget the body with its delivery.
   * @throws when the store fails (nothing is recorded then).
   */
  recordDelivery(deliveryId: string, event: string, body: Buffer): Promise<DeliveryRecord>;
  /**
   * Whether the delivery was recorded more than `ageMs` milliseconds ago, by the clock that dates
   * the records (the database's); false for one not recorded.
   * @throws when the store fails.
   */
  recordedMoreThan(deliveryId: string, ageMs: number): Promise<boolean>;
  /**
   * Whether the delivery is recorded (and not forgotten since), through any replica.
   * @throws when the store fails.
   */
  recorded(deliveryId: string): Promise<boolean>;
  /** Forgets a delivery whose processing could not be stored, so a redelivery is accepted. Idempotent: an unknown id is no error. */
  forget(deliveryId: string): Promise<void>;
  /**
   * Retention: forgets up to `limit` deliveries recorded before `cutoff`, oldest first, and
   * returns how many (fewer than `limit`: none is left). A forgotten delivery would be run
   * again if redelivered: the cutoff must lie further back than any platform redelivers.
   */
  deleteOlderThan(cutoff: Date, limit: number): Promise<number>;
}
