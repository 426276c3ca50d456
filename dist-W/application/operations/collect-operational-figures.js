/**
 * The depth reported for the trigger runs of stored requests that are not queued yet
 * (DispatchTriggerRuns queues them after the answer): work accepted and waiting like a task.
 */
export const TRIGGER_DISPATCH_DEPTH = 'trigger-run-dispatch';
/** The figures operators watch, read when asked (a metrics scrape, the health page). */
export class CollectOperationalFigures {
    queue;
    jobs;
    actionRuns;
    scheduleRuns;
    requests;
    constructor(queue, jobs, actionRuns, scheduleRuns, 
    /** Counts the requests whose runs are still to be queued, reported as TRIGGER_DISPATCH_DEPTH. */
    requests) {
        this.queue = queue;
        this.jobs = jobs;
        this.actionRuns = actionRuns;
        this.scheduleRuns = scheduleRuns;
        this.requests = requests;
    }
    async execute() {
        const [depth, failedTasks, jobs, actionRuns, undispatched] = await Promise.all([
            this.queue.depth(),
            this.queue.failed(),
            this.jobs.countByStatus(),
            this.actionRuns.countByStatus(),
            this.requests?.countUndispatched(),
        ]);
        const queueDepth = undispatched === undefined ? depth : { ...depth, [TRIGGER_DISPATCH_DEPTH]: undispatched };
        if (!this.scheduleRuns)
            return { queueDepth, failedTasks, jobs, actionRuns };
        const [scheduleRuns, latest] = await Promise.all([this.scheduleRuns.countByStatus(), this.scheduleRuns.latest()]);
        const scheduleLast = [...latest.values()].map((run) => ({ schedule: run.schedule, occurrence: run.occurrence, status: run.status }));
        return { queueDepth, failedTasks, jobs, actionRuns, scheduleRuns, scheduleLast };
    }
}
//# sourceMappingURL=collect-operational-figures.js.map