import { scheduleRunName, type Schedule } from '../../domain/schedules/schedule.js';
import { scheduleSnapshot } from '../../domain/schedules/schedule-tokens.js';
import { storableText } from '../../domain/text/storable-text.js';
import type { Clock } from '../../ports/clock.js';
import type { LiveSet } from '../../ports/live-set.js';
import type { Logger } from '../../ports/logger.js';
import type { ScheduleRunRepository } from '../../ports/schedule-run-repository.js';
import type { RunTrigger } from '../triggers/run-trigger.js';

export const SCHEDULE_RUN_QUEUE = 'schedule-run';

/** One occurrence of one schedule: the task enqueued once across replicas (key: occurrenceKey). */
export interface ScheduleRunTask {
  readonly schedule: string;
  /** ISO 8601, UTC. */
  readonly occurrence: string;
  readonly catchUp: boolean;
  /** The fingerprint of the definition that enqueued it (scheduleFingerprint); absent in tasks enqueued before fingerprints were. */
  readonly fingerprint?: string;
}

/**
 * Runs the actions of one schedule occurrence with the trigger action runner (each action
 * recorded as a trigger's are, under `cron:<name>`), and records the occurrence's outcome.
 * The task's id is the run id, so a task run again does not repeat actions that ran.
 */
export class RunSchedule {
  constructor(
    private readonly schedules: LiveSet<readonly Schedule[]>,
    private readonly actions: RunTrigger,
    private readonly runs: ScheduleRunRepository,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** `signal`: aborted when the task queue took the task back (see ActionsRun). */
  async execute(task: ScheduleRunTask, taskId: string, signal?: AbortSignal): Promise<void> {
    const occurrence = new Date(task.occurrence);
    const log = this.logger.child({ schedule: task.schedule, occurrence: task.occurrence, runId: taskId });
    const base = { schedule: task.schedule, occurrence, catchUp: task.catchUp, runId: taskId, fingerprint: task.fingerprint ?? null };
    const schedule = this.schedules.current().find((candidate) => candidate.name === task.schedule);
    if (!schedule?.enabled) {
      log.warn({}, schedule ? 'schedule is disabled; its queued run is skipped' : 'schedule is no longer configured; its queued run is skipped');
      await this.runs.put({ ...base, status: 'skipped', updatedAt: this.clock.now(), error: schedule ? 'disabled' : 'no longer configured' });
      return;
    }
    await this.runs.put({ ...base, status: 'running', updatedAt: this.clock.now(), error: null });
    let statuses: Awaited<ReturnType<RunTrigger['runActions']>>;
    try {
      statuses = await this.actions.runActions(
        {
          runId: taskId,
          name: scheduleRunName(schedule.name),
          actions: schedule.actions,
          request: scheduleSnapshot(schedule.name, occurrence),
          detail: { schedule: schedule.name, occurrence: task.occurrence },
          signal,
        },
        log,
      );
    } catch (error) {
      // Stopped (the queue took the task back) or the records could not be read: the occurrence
      // says so rather than `running` for good; the queue's next run of the task, if any, records again.
      const reason = storableText(error instanceof Error ? error.message : String(error)).slice(0, 500);
      await this.runs.put({ ...base, status: 'failed', updatedAt: this.clock.now(), error: reason }).catch(() => undefined);
      throw error;
    }
    const failed = statuses.filter((status) => status !== 'succeeded').length;
    const error = failed === 0 ? null : storableText(`${failed} of ${statuses.length} action${statuses.length === 1 ? '' : 's'} did not succeed`);
    try {
      await this.runs.put({ ...base, status: failed === 0 ? 'succeeded' : 'failed', updatedAt: this.clock.now(), error });
    } catch (recordError) {
      // The actions ran and are recorded; a failed outcome record is logged rather than thrown.
      log.error({ err: recordError }, 'schedule ran but its outcome could not be recorded');
    }
    log.info({ catchUp: task.catchUp, status: failed === 0 ? 'succeeded' : 'failed' }, task.catchUp ? 'schedule ran (catch-up)' : 'schedule ran');
  }
}
