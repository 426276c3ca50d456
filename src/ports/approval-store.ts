import type { Approval, ApprovalStatus } from '../domain/approvals/approval.js';

/** Approvals that actions with `approval: true` wait for, shared by every replica. */
export interface ApprovalStore {
  /**
   * Stores a pending approval, or returns the one already stored for the same run and action
   * (a task run again after its worker died asks once).
   * @throws when the store fails.
   */
  request(approval: Approval): Promise<Approval>;
  /**
   * Decides a pending approval that has not expired at `now`: the decided record, or null when
   * there is no such pending approval (unknown id, decided already, or expired). Atomic: of
   * decisions made at once on any replica, exactly one wins.
   */
  decide(id: string, decision: 'approved' | 'denied', by: string, now: Date): Promise<Approval | null>;
  /** Marks up to `limit` pending approvals that expired at `now` as expired, and returns them. */
  expireDue(now: Date, limit: number): Promise<Approval[]>;
  /** The approval with this id; null when none (or the id is no UUID). */
  find(id: string): Promise<Approval | null>;
  /** Approvals with this status (all when absent), newest first, at most `limit`. */
  list(filter: { readonly status?: ApprovalStatus; readonly limit: number }): Promise<Approval[]>;
  /** Retention: deletes up to `limit` decided or expired approvals created before `cutoff`; returns how many. */
  deleteOlderThan(cutoff: Date, limit: number): Promise<number>;
}
