import type { TriggerAction } from '../triggers/trigger.js';

export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired';

/** A person's go-ahead that an action with `approval: true` waits for. */
export interface Approval {
  readonly id: string;
  /** The trigger run that stopped before the action. */
  readonly runId: string;
  readonly trigger: string;
  readonly actionIndex: number;
  readonly actionType: TriggerAction['type'];
  /** The action as it would run, for the person deciding: a command with its values, a webhook's method and URL, a job's prompt. */
  readonly summary: string;
  /** The stored request that fired the run (InboundRequestStore), when there is one. */
  readonly requestId: string | null;
  readonly watchPath: string;
  /** When the trigger fired (ISO), carried to the resumed run. */
  readonly firedAt: string;
  readonly status: ApprovalStatus;
  readonly createdAt: Date;
  /** After this, a pending approval can no longer be approved: it expires. */
  readonly expiresAt: Date;
  /** Who decided: `admin UI`, or a channel's user. Null while pending and for an expired one. */
  readonly decidedBy: string | null;
  readonly decidedAt: Date | null;
}

/** The status a person sees: a pending approval past its time is expired, even before the sweep records it. */
export const effectiveStatus = (approval: Approval, now: Date): ApprovalStatus =>
  approval.status === 'pending' && approval.expiresAt.getTime() <= now.getTime() ? 'expired' : approval.status;
