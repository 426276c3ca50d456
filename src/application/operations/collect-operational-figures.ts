import type { JobStatus } from '../../domain/jobs/job.js';
import type { ActionRunRepository } from '../../ports/action-run-repository.js';
import type { InboundRequestStore } from '../../ports/inbound-request-store.js';
import type { JobRepository } from '../../ports/job-repository.js';
import type { ScheduleRunRepository } from '../../ports/schedule-run-repository.js';
import type { TaskQueue } from '../../ports/task-queue.js';

/**
 * The depth reported for the trigger runs of stored requests that are not queued yet
 * (DispatchTriggerRuns queues them after the answer): work accepted and waiting like a task.
 */
export const TRIGGER_DISPATCH_DEPTH = 'trigger-run-dispatch';

export interface OperationalFigures {
  /** Tasks waiting or running, per queue; and stored requests whose runs are not queued yet (TRIGGER_DISPATCH_DEPTH). */
  readonly queueDepth: Readonly<Record<string, number>>;
  /** Tasks that failed for good, per queue. */
  readonly failedTasks: Readonly<Record<string, number>>;
  readonly jobs: Readonly<Partial<Record<JobStatus, number>>>;
  /** Trigger action runs by outcome. */
  readonly actionRuns: Readonly<Record<string, number>>;
  /** Schedule occurrences by schedule and status, and each schedule's latest occurrence (when a repository is given). */
  readonly scheduleRuns?: ReadonlyArray<{ readonly schedule: string; readonly status: string; readonly count: number }>;
  readonly scheduleLast?: ReadonlyArray<{ readonly schedule: string; readonly occurrence: Date; readonly status: string }>;
}

/** The figures operators watch, read when asked (a metrics scrape, the health page). */
export class CollectOperationalFigures {
  constructor(
    private readonly queue: TaskQueue,
    private readonly jobs: JobRepository,
    private readonly actionRuns: ActionRunRepository,
    private readonly scheduleRuns?: ScheduleRunRepository,
    /** Counts the requests whose runs are still to be queued, reported as TRIGGER_DISPATCH_DEPTH. */
    private readonly requests?: Pick<InboundRequestStore, 'countUndispatched'>,
  ) {}

  async execute(): Promise<OperationalFigures> {
    const [depth, failedTasks, jobs, actionRuns, undispatched] = await Promise.all([
      this.queue.depth(),
      this.queue.failed(),
      this.jobs.countByStatus(),
      this.actionRuns.countByStatus(),
      this.requests?.countUndispatched(),
    ]);
    const queueDepth = undispatched === undefined ? depth : { ...depth, [TRIGGER_DISPATCH_DEPTH]: undispatched };
    if (!this.scheduleRuns) return { queueDepth, failedTasks, jobs, actionRuns };
    const [scheduleRuns, latest] = await Promise.all([this.scheduleRuns.countByStatus(), this.scheduleRuns.latest()]);
    const scheduleLast = [...latest.values()].map((run) => ({ schedule: run.schedule, occurrence: run.occurrence, status: run.status }));
    return { queueDepth, failedTasks, jobs, actionRuns, scheduleRuns, scheduleLast };
  }
}
