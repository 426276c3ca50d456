/**
 * Whether the service has room for background work now. Background tasks (trigger runs, chat
 * replies, jobs) wait here before they start, so that while the service is busy the requests
 * its callers are waiting for are answered first.
 */
export interface Headroom {
  /**
   * Resolves at once when there is room. Otherwise resolves once there is, or after a bounded
   * wait: background work is slowed down under load, never stopped.
   */
  wait(): Promise<void>;
}

/** Room at once, always: background work starts without waiting (the CLI, unit tests, a default). */
export const NO_WAIT: Headroom = { wait: () => Promise.resolve() };
