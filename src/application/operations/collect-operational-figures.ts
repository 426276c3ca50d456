import type { JobStatus } from '../../domain/jobs/job.js';
import type { ActionRunRepository } from '../../ports/action-run-repository.js';
import type { JobRepository } from '../../ports/job-repository.js';
import type { ScheduleRunRepository } from '../../ports/schedule-run-repository.js';
import type { TaskQueue } from '../../ports/task-queue.js';

export interface OperationalFigures {
  /** Tasks waiting or running, per queue. */
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
  ) {}

  async execute(): Promise<OperationalFigures> {
    const [queueDepth, failedTasks, jobs, actionRuns] = await Promise.all([
      this.queue.depth(),
      this.queue.failed(),
      this.jobs.countByStatus(),
      this.actionRuns.countByStatus(),
    ]);
    if (!this.scheduleRuns) return { queueDepth, failedTasks, jobs, actionRuns };
    const [scheduleRuns, latest] = await Promise.all([this.scheduleRuns.countByStatus(), this.scheduleRuns.latest()]);
    const scheduleLast = [...latest.values()].map((run) => ({ schedule: run.schedule, occurrence: run.occurrence, status: run.status }));
    return { queueDepth, failedTasks, jobs, actionRuns, scheduleRuns, scheduleLast };
  }
}
