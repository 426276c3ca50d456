/** The idempotency key of one occurrence: the same on every replica, so it is enqueued once. */
export const occurrenceKey = (name, occurrence) => `cron:${name}:${occurrence.toISOString()}`;
/** The name a schedule's action runs are recorded under (beside the triggers' runs). */
export const scheduleRunName = (name) => `cron:${name}`;
//# sourceMappingURL=schedule.js.map