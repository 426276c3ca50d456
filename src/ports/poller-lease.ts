/**
 * Leases that let exactly one replica do a job that must not run twice at once (polling a
 * chat platform for updates), with the position that job has reached. A lease expires unless
 * renewed, so another replica takes over when its holder dies; a holder that stops gives it up.
 * Times are the caller's clock (`now`): replicas are expected to agree on time within far less
 * than a lease lasts.
 */
export interface PollerLease {
  /**
   * Takes the lease `name` for `holder` until `now + ttlMs` when it is free, expired or already
   * the holder's (a renewal); false, changing nothing, when another holder has it. Atomic across
   * replicas: of holders asking at once for a free lease, exactly one gets true.
   */
  acquire(name: string, holder: string, now: Date, ttlMs: number): Promise<boolean>;
  /** The position stored under `name`, or undefined before the first `advance`. Kept when the lease changes hands. */
  cursor(name: string): Promise<string | undefined>;
  /** Stores the position when `holder` still holds the lease at `now`; false (nothing stored) when it does not. */
  advance(name: string, holder: string, cursor: string, now: Date): Promise<boolean>;
  /** Gives the lease up when `holder` has it (the position stays), so that another may take it at once. Idempotent. */
  release(name: string, holder: string): Promise<void>;
}
