/** Asks at most this often (and at least four times per sweep period, so that no period goes without). */
const MAX_ASK_MS = 5 * 60_000;
/**
 * Asks for the current period's retention sweep now and then several times per period; the
 * sweep itself runs on the task queue, once per period across replicas. A failed ask is
 * logged and made again at the next tick. Returns the timer (unref'd) to clear at shutdown.
 */
export const startRetentionSchedule = (schedule, logger) => {
    const ask = () => void schedule.execute().catch((error) => logger.warn({ err: error }, 'could not schedule the retention sweep; asking again later'));
    ask();
    const timer = setInterval(ask, Math.max(1000, Math.min(schedule.intervalMs / 4, MAX_ASK_MS)));
    timer.unref();
    return timer;
};
//# sourceMappingURL=retention-schedule.js.map