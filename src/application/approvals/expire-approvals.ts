import type { ActionRunRepository } from '../../ports/action-run-repository.js';
import type { ApprovalStore } from '../../ports/approval-store.js';
import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import { EXPIRED_ERROR, closedRun } from './decide-approval.js';

const BATCH = 100;

/**
 * Records the approvals whose time ran out undecided as expired: their actions never run. Any
 * replica may run it at any time; each approval expires once (ApprovalStore.expireDue).
 * Until it has run, an expired approval already refuses a decision.
 */
export class ExpireApprovals {
  constructor(
    private readonly approvals: ApprovalStore,
    private readonly runs: ActionRunRepository,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** Returns how many approvals expired. */
  async execute(): Promise<number> {
    let total = 0;
    for (;;) {
      const now = this.clock.now();
      const expired = await this.approvals.expireDue(now, BATCH);
      for (const approval of expired) {
        await this.runs.save(closedRun(approval, 'expired', EXPIRED_ERROR, now));
        this.logger.info(
          { approvalId: approval.id, trigger: approval.trigger, runId: approval.runId, action: approval.actionIndex },
          'trigger action approval expired; the run ends',
        );
      }
      total += expired.length;
      if (expired.length < BATCH) return total;
    }
  }
}
