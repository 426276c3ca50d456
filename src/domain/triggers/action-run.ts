import type { TriggerAction } from './trigger.js';

/**
 * `running`: recorded when the action starts, replaced by its outcome (found after a crash, the
 * action is recorded as interrupted and not started again).
 * `awaiting_approval`: the run stopped before this action until a person decides (it is replaced
 * by the action's outcome once approved); `denied` and `expired`: it never ran.
 */
export const ACTION_RUN_STATUSES = ['running', 'succeeded', 'failed', 'not_runnable', 'awaiting_approval', 'denied', 'expired'] as const;
export type ActionRunStatus = (typeof ACTION_RUN_STATUSES)[number];

/** One action of one trigger run, as recorded and shown to operators. */
export interface ActionRun {
  /** The trigger run: one trigger fired by one request. */
  readonly runId: string;
  readonly trigger: string;
  /**
   * The action's place in the trigger's (or schedule's) actions when the run recorded it. A run
   * of the task again after a reload that moved its actions keeps each record where it is and
   * records an action new to the run at its place, or after every index in use when a record
   * holds that place (RunTrigger's matchRecords).
   */
  readonly actionIndex: number;
  /**
   * The action's type; `unknown` in the one record of a queued run dropped because its trigger
   * was removed since: its actions are not known any more, the record stands for those it had
   * not run (RunTrigger).
   */
  readonly type: TriggerAction['type'] | 'unknown';
  readonly status: ActionRunStatus;
  readonly attempts: number;
  readonly startedAt: Date;
  readonly finishedAt: Date;
  readonly error: string | null;
  /**
   * Outcome details: exit code, duration (`commandMs`) and output of a command (up to 16 KiB:
   * its beginning and end when longer), HTTP status of a webhook, job id of an agent action;
   * and `requestId`, the stored request that fired the run (InboundRequestStore), when there is one.
   * `action`: what the action is (actionFingerprint); `actions`: the fingerprints of the run's
   * actions, in order, as the attempt that wrote the record ran them — a run of the task again
   * finds its records by them (records from before they were kept: by `actionIndex`).
   */
  readonly detail: Readonly<Record<string, unknown>>;
}
