import { closedRun } from './decide-approval.js';
const BATCH = 100;
/**
 * Records the approvals whose time ran out undecided as expired: their actions never run. Any
 * replica may run it at any time; each approval expires once (ApprovalStore.expireDue).
 * Until it has run, an expired approval already refuses a decision.
 */
export class ExpireApprovals {
    approvals;
    runs;
    clock;
    logger;
    constructor(approvals, runs, clock, logger) {
        this.approvals = approvals;
        this.runs = runs;
        this.clock = clock;
        this.logger = logger;
    }
    /** Returns how many approvals expired. */
    async execute() {
        let total = 0;
        for (;;) {
            const now = this.clock.now();
            const expired = await this.approvals.expireDue(now, BATCH);
            for (const approval of expired) {
                await this.runs.save(closedRun(approval, 'expired', 'no decision before the approval expired', now));
                this.logger.info({ approvalId: approval.id, trigger: approval.trigger, runId: approval.runId, action: approval.actionIndex }, 'trigger action approval expired; the run ends');
            }
            total += expired.length;
            if (expired.length < BATCH)
                return total;
        }
    }
}
//# sourceMappingURL=expire-approvals.js.map