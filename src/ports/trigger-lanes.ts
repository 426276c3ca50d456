/**
 * Deals a trigger's runs to its lanes: a counter per trigger, shared by every replica, that a
 * trigger with `concurrency: N` takes modulo N to pick the lane of each run (round robin).
 */
export interface TriggerLanes {
  /**
   * The trigger's next number: 0 for its first call, then one more per call, whichever replica
   * calls. Atomic: calls at once anywhere never get the same number. Names up to 200 characters.
   * @throws when the store fails.
   */
  next(trigger: string): Promise<number>;
}
