import { IDEMPOTENCY_WINDOW_MS } from '../../domain/jobs/idempotency.js';
/** The durable queue of retention sweeps (one task per sweep period, see ScheduleRetentionSweep). */
export const RETENTION_SWEEP_QUEUE = 'retention-sweep';
const DAY_MS = 86_400_000;
/**
 * One retention sweep: deletes what outlived its retention (expired admin sessions, ended
 * login windows, idempotency keys past their 24 hours, old deliveries, chat turns, action runs and inbound requests), each kind in
 * short statements of a bounded batch, with a bounded number of batches per sweep, so the
 * database is never held long; what is left goes at the next sweep. One kind failing does
 * not stop the others; the sweep then rejects (naming the kinds) so the queue retries it.
 */
export class SweepExpiredData {
    stores;
    policy;
    clock;
    logger;
    limits;
    constructor(stores, policy, clock, logger, limits = { batchSize: 1000, maxBatches: 20 }) {
        this.stores = stores;
        this.policy = policy;
        this.clock = clock;
        this.logger = logger;
        this.limits = limits;
    }
    async execute() {
        const now = this.clock.now();
        const report = {};
        const failed = [];
        for (const [kind, deleteBatch] of this.#kinds(now)) {
            try {
                report[kind] = await this.#sweep(deleteBatch);
            }
            catch (error) {
                failed.push(kind);
                this.logger.error({ err: error, kind }, 'retention sweep could not delete expired records');
            }
        }
        const deleted = Object.fromEntries(Object.entries(report).map(([kind, outcome]) => [kind, outcome.deleted]));
        const more = Object.keys(report).filter((kind) => report[kind].more);
        const fields = { deleted, ...(more.length > 0 ? { more } : {}), durationMs: this.clock.now().getTime() - now.getTime() };
        if (Object.values(deleted).some((count) => count > 0))
            this.logger.info(fields, 'retention sweep deleted expired records');
        else
            this.logger.debug(fields, 'retention sweep found nothing expired');
        if (failed.length > 0)
            throw new Error(`Retention sweep failed for ${failed.join(', ')}`);
        return report;
    }
    /** The kinds to sweep now, each with its batch delete; kinds kept for good are left out. */
    #kinds(now) {
        const { stores, policy } = this;
        const before = (days) => new Date(now.getTime() - days * DAY_MS);
        const kinds = [
            ['adminSessions', 1, (limit) => stores.adminSessions.deleteExpiredSessions(now, limit)],
            ['loginAttempts', 1, (limit) => stores.loginAttempts.deleteEnded(now, policy.loginWindowMs, limit)],
            ['idempotencyKeys', 1, (limit) => stores.idempotencyKeys.deleteOlderThan(new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS), limit)],
            ['deliveries', policy.deliveriesDays, (limit) => stores.deliveries.deleteOlderThan(before(policy.deliveriesDays), limit)],
            ['chatTurns', policy.chatTurnsDays, (limit) => stores.chatTurns.deleteOlderThan(before(policy.chatTurnsDays), limit)],
            ['actionRuns', policy.actionRunsDays, (limit) => stores.actionRuns.deleteOlderThan(before(policy.actionRunsDays), limit)],
            ['inboundRequests', policy.inboundRequestsDays, (limit) => stores.inboundRequests.deleteOlderThan(before(policy.inboundRequestsDays), limit)],
        ];
        const { approvals } = stores;
        if (approvals)
            kinds.push(['approvals', policy.actionRunsDays, (limit) => approvals.deleteOlderThan(before(policy.actionRunsDays), limit)]);
        const scheduleRuns = stores.scheduleRuns;
        if (scheduleRuns)
            kinds.push(['scheduleRuns', policy.actionRunsDays, (limit) => scheduleRuns.deleteOlderThan(before(policy.actionRunsDays), limit)]);
        return kinds.filter(([, days]) => days > 0).map(([kind, , deleteBatch]) => [kind, deleteBatch]);
    }
    /** Deletes batch after batch until one comes back short (nothing left) or the sweep's share is used up. */
    async #sweep(deleteBatch) {
        const { batchSize, maxBatches } = this.limits;
        let deleted = 0;
        for (let batch = 0; batch < maxBatches; batch++) {
            const count = await deleteBatch(batchSize);
            deleted += count;
            if (count < batchSize)
                return { deleted, more: false };
        }
        return { deleted, more: true };
    }
}
//# sourceMappingURL=sweep-expired-data.js.map