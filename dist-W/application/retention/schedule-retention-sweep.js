import { RETENTION_SWEEP_QUEUE } from './sweep-expired-data.js';
/**
 * Asks for the retention sweep of the current period: time is cut into periods of
 * `intervalMs`, and the sweep task of a period is stored under an idempotency key naming it,
 * so however many replicas ask, and however often, one sweep per period is stored — and run
 * once, by whichever replica's worker takes it. Each replica asks a few times per period, so
 * no period is missed while any replica runs.
 */
export class ScheduleRetentionSweep {
    queue;
    clock;
    intervalMs;
    constructor(queue, clock, intervalMs) {
        this.queue = queue;
        this.clock = clock;
        this.intervalMs = intervalMs;
    }
    /** True when this call stored the period's sweep; false when it was stored already. */
    async execute() {
        const period = Math.floor(this.clock.now().getTime() / this.intervalMs);
        const id = await this.queue.enqueue(RETENTION_SWEEP_QUEUE, { period }, { key: `every-${this.intervalMs}ms:${period}` });
        return id !== null;
    }
}
//# sourceMappingURL=schedule-retention-sweep.js.map