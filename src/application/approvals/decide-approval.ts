import { type Approval, effectiveStatus } from '../../domain/approvals/approval.js';
import { DomainError } from '../../domain/errors/domain-error.js';
import type { ActionRun } from '../../domain/triggers/action-run.js';
import type { ActionRunRepository } from '../../ports/action-run-repository.js';
import type { ApprovalStore } from '../../ports/approval-store.js';
import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import type { FireTriggers, ResumeOutcome } from '../triggers/fire-triggers.js';

export interface DecideApprovalInput {
  readonly id: string;
  readonly decision: 'approved' | 'denied';
  /** Who decides, as the record shows it: `admin UI`, or a channel's user. */
  readonly by: string;
}

/** An approval as a decision left it. */
export type DecidedApproval = Approval & {
  /**
   * Approved: whether the action runs (`runs`), or why nothing does (FireTriggers.resume: a reload
   * removed or disabled the trigger, changed or removed the action, changed the trigger's
   * `watch_path` so that it no longer watches the request's path, or its `when` so that the
   * request no longer passes it, since it asked). Absent when denied.
   */
  readonly resumed?: ResumeOutcome;
};

/**
 * Why an approved action runs nothing, for the person who approved it (the chat's answer, the
 * admin UI's notice); undefined when it runs (or was denied).
 */
export const whyNothingRuns = (decided: DecidedApproval): string | undefined => {
  switch (decided.resumed) {
    case 'trigger-removed':
      return `trigger "${decided.trigger}" is no longer configured`;
    case 'trigger-disabled':
      return `trigger "${decided.trigger}" is disabled`;
    case 'action-changed':
      return `action ${decided.actionIndex} of trigger "${decided.trigger}" was changed or removed since it asked`;
    case 'watch-changed':
      return `trigger "${decided.trigger}" no longer watches ${decided.watchPath}, the path of the request that fired it`;
    case 'when-changed':
      return `the "when" of trigger "${decided.trigger}" no longer matches the request that fired it`;
    default:
      return undefined;
  }
};

/** The record of an action that will never run: denied by a person, or expired undecided. */
/** The error an expired approval's action record gives. */
export const EXPIRED_ERROR = 'no decision before the approval expired';

export const closedRun = (approval: Approval, status: 'denied' | 'expired', error: string, at: Date): ActionRun => ({
  runId: approval.runId,
  trigger: approval.trigger,
  actionIndex: approval.actionIndex,
  type: approval.actionType,
  status,
  attempts: 0,
  startedAt: approval.createdAt,
  finishedAt: at,
  error,
  detail: { approvalId: approval.id, ...(approval.requestId === null ? {} : { requestId: approval.requestId }) },
});

/**
 * A person approves or denies an action that waits (`approval: true`): approved, the run resumes
 * at that action (queued, on any replica); denied, the action and those after it never run. One
 * decision per approval across replicas; a late or second one is refused.
 */
export class DecideApproval {
  constructor(
    private readonly approvals: ApprovalStore,
    private readonly runs: ActionRunRepository,
    private readonly fire: Pick<FireTriggers, 'resume'>,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /**
   * @throws DomainError not_found for an unknown approval; conflict for one decided already or expired.
   */
  async execute(input: DecideApprovalInput): Promise<DecidedApproval> {
    const now = this.clock.now();
    const decided = await this.approvals.decide(input.id, input.decision, input.by, now);
    if (decided === null) {
      const found = await this.approvals.find(input.id);
      if (found === null) throw new DomainError('not_found', `No approval with id ${input.id}`);
      const status = effectiveStatus(found, now);
      // Approved, but its run may never have been queued (the queue failed right after the
      // decision was stored, and the caller saw an error): queued now, which the queue stores once.
      if (status === 'approved') await this.#resume(found);
      // Denied, but the action's record may still say it waits (the record failed to save right
      // after the decision was stored): closed now (saving the same record again changes nothing).
      if (status === 'denied' && found.decidedAt !== null)
        await this.runs.save(closedRun(found, 'denied', `denied by ${found.decidedBy ?? 'someone'}`, found.decidedAt));
      // Expired by the sweep, whose save of the record failed (or whose process died) right after:
      // closed now, as the sweep would have.
      if (found.status === 'expired') await this.runs.save(closedRun(found, 'expired', EXPIRED_ERROR, found.expiresAt));
      throw new DomainError(
        'conflict',
        status === 'expired' ? 'This approval has expired: the action was not run' : `This approval was ${status} already by ${found.decidedBy ?? 'someone'}`,
      );
    }
    const log = { approvalId: decided.id, trigger: decided.trigger, runId: decided.runId, action: decided.actionIndex, by: decided.decidedBy };
    if (decided.status === 'approved') {
      const resumed = await this.#resume(decided);
      this.logger.info({ ...log, resumed }, resumed === 'runs' ? 'trigger action approved; the run resumes' : 'trigger action approved; nothing runs');
      return { ...decided, resumed };
    }
    await this.runs.save(closedRun(decided, 'denied', `denied by ${input.by}`, now));
    this.logger.info(log, 'trigger action denied; the run ends');
    return decided;
  }

  /** Queues the approved run, telling it the action approved: its fingerprint, as its record kept it when it asked. */
  async #resume(approval: Approval): Promise<ResumeOutcome> {
    const record = (await this.runs.forRun(approval.runId)).find((run) => run.actionIndex === approval.actionIndex);
    const fingerprint = record?.detail.action;
    return this.fire.resume(approval, typeof fingerprint === 'string' ? fingerprint : undefined);
  }
}
