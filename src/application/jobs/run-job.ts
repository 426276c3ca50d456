import { applyChange, isFinished, type Job, type JobChange } from '../../domain/jobs/job.js';
import { isDomainError } from '../../domain/errors/domain-error.js';
import type { Clock } from '../../ports/clock.js';
import type { JobRepository } from '../../ports/job-repository.js';
import type { JobRunner } from '../../ports/job-runner.js';
import type { Logger } from '../../ports/logger.js';
import type { Timer } from '../../ports/timer.js';
import type { JobRunTask } from './create-job.js';

export const INTERRUPTED = 'The service stopped while the job was running';
/** The abort reason of a stop of the service (cancellation uses another). */
const SHUTDOWN = 'shutdown';
/** The abort reason of a run whose task the queue took back (its signal aborted). */
const TAKEN_BACK = 'taken back';
/** The error of a job whose task the queue took back while it ran: `why` is the queue's reason. */
export const takenBackError = (why: string): string => `The job was stopped: ${why}`;
/** Why a signal aborted, as a line. */
const reasonOf = (signal: AbortSignal | undefined): string => (signal?.reason instanceof Error ? signal.reason.message : String(signal?.reason));
/** How often a running job's status is read, to see a cancellation made on another replica. */
export const CANCEL_WATCH_MS = 5_000;

/**
 * Runs a queued job with the configured runner (the worker of the job-run queue).
 * A job found `running` on a repeated task was interrupted by a stop of the process:
 * it is marked failed with that reason rather than run twice. Cancellation aborts it: at once
 * on this replica (`abort`), and, with a `timer`, within CANCEL_WATCH_MS when another replica
 * cancelled it (its status is read that often while it runs). The task's `signal` (the queue took
 * it back: its time limit, or its claim lost on a replica cut off from the database) stops it at
 * once too, its work kept as on a cancel, and marks it failed: the task's next attempt, here or on
 * another replica, finds a stopped run, never one whose agent still works beside it. A hand-over
 * (a runner with `poll`) gets the signal too: taken back, its calls stop, and the job stays
 * running for the task's next attempt to hand it over again (the runner takes what it made as its own).
 */
export class RunJob {
  readonly #running = new Map<string, AbortController>();

  constructor(
    private readonly jobs: JobRepository,
    private readonly runner: JobRunner,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly timer?: Timer,
  ) {}

  /**
   * `attempt`: the queue's attempt of the task (1: its first delivery; more: run again after its
   * worker died). `signal`: the task's (RunningTask), aborted when the queue takes it back.
   */
  async execute(task: JobRunTask, { attempt = 2, signal }: { readonly attempt?: number; readonly signal?: AbortSignal } = {}): Promise<void> {
    const log = this.logger.child({ jobId: task.jobId, runner: this.runner.kind });
    const job = await this.jobs.get(task.jobId);
    if (!job) return log.warn({}, 'queued job no longer exists');
    if (isFinished(job.status)) return;
    if (job.status === 'running' && this.runner.poll !== undefined) {
      // A runner that hands the job elsewhere: its task delivered again (a stop before the queue
      // recorded it done) finds it running, handed over or not (the stop came midway). The
      // hand-over is done again: it takes what the first one made as its own (the runner's
      // contract), so a job handed over stays as it is and one that was not is handed over now.
      log.info({}, 'job found running on a repeated task; handing it over again');
      return this.#handOver(job, log, signal);
    }
    if (job.status === 'running') {
      // A first delivery finding the job running is a second task of the job (RequeueStrandedJobs
      // queued one beside a task from before tasks had keys): the other runs it.
      if (attempt <= 1) return log.info({}, 'job already runs from another task of it');
      await this.#report(task.jobId, { status: 'failed', error: INTERRUPTED });
      return log.warn({}, 'job was interrupted by a stop of the service; marked failed');
    }
    // Taken back before it started: the task's next attempt starts it.
    if (signal?.aborted) return log.info({}, 'job-run task taken back by the queue before the job started');
    // Started only from `queued`: of two tasks of one job taking it at once, one starts it.
    let moved = false;
    const started = await this.jobs.modify(job.id, (stored) => {
      if (stored.status !== 'queued') return stored;
      moved = true;
      return applyChange(stored, { status: 'running' }, this.clock.now());
    });
    if (!started || !moved) return log.info({}, 'job taken by another task of it');
    const controller = new AbortController();
    this.#running.set(job.id, controller);
    const takeBack = (): void => controller.abort(TAKEN_BACK);
    if (signal?.aborted) takeBack();
    else signal?.addEventListener('abort', takeBack, { once: true });
    const stopWatching = this.#watchForCancellation(job.id, controller, log);
    log.info({}, 'job started');
    try {
      await this.runner.run(started, (change) => this.#report(job.id, change), controller.signal);
    } catch (error) {
      // A run stopped by its abort (a cancel, a take-back, a stop of the service) may throw
      // (a hand-over's call given up): what follows records why it stopped, not that abort's error.
      if (controller.signal.aborted) log.info({ err: error, reason: controller.signal.reason }, 'job run stopped by its abort');
      else {
        log.error({ err: error }, 'job failed to run');
        await this.#report(job.id, { status: 'failed', error: error instanceof Error ? error.message : String(error) });
      }
    } finally {
      stopWatching();
      signal?.removeEventListener('abort', takeBack);
      this.#running.delete(job.id);
    }
    if (controller.signal.aborted && controller.signal.reason === SHUTDOWN) {
      await this.#report(job.id, { status: 'failed', error: INTERRUPTED });
      log.warn({}, 'job stopped by a stop of the service; marked failed');
    }
    if (controller.signal.aborted && controller.signal.reason === TAKEN_BACK && this.runner.poll !== undefined) {
      // A hand-over (no agent works here): the task's next attempt finds the job running and hands
      // it over again, taking what this one made as its own. Failing it would drop a job whose
      // branch, and so its workflow run, may be made already.
      log.warn({ reason: reasonOf(signal) }, 'job hand-over stopped: the queue took its task back; its next attempt hands it over again');
    } else if (controller.signal.aborted && controller.signal.reason === TAKEN_BACK) {
      const why = reasonOf(signal);
      // Unless it ended meanwhile (the next attempt may have marked it failed as interrupted already).
      await this.jobs.modify(job.id, (stored) =>
        stored.status === 'running' ? applyChange(stored, { status: 'failed', error: takenBackError(why) }, this.clock.now()) : stored,
      );
      log.warn({ reason: why }, 'job stopped: the queue took its task back; marked failed');
    }
    const finished = await this.jobs.get(job.id);
    log.info({ status: finished?.status }, 'job runner returned');
  }

  /** Hands a running job over again; `signal` (the task's) stops it, the job left running for the task's next attempt. */
  async #handOver(job: Job, log: Logger, signal: AbortSignal | undefined): Promise<void> {
    try {
      await this.runner.run(job, (change) => this.#report(job.id, change), signal ?? new AbortController().signal);
    } catch (error) {
      if (signal?.aborted)
        return log.warn({ reason: reasonOf(signal) }, 'job hand-over stopped: the queue took its task back; its next attempt hands it over again');
      log.error({ err: error }, 'job failed to run');
      await this.#report(job.id, { status: 'failed', error: error instanceof Error ? error.message : String(error) });
    }
  }

  /** Reads the job's status every CANCEL_WATCH_MS while it runs, and aborts it once it is cancelled (by another replica). Returns the stop. */
  #watchForCancellation(jobId: string, controller: AbortController, log: Logger): () => void {
    const timer = this.timer;
    if (timer === undefined) return () => undefined;
    let cancel = (): void => undefined;
    // Set when the job ended: a look in flight then schedules no other.
    let stopped = false;
    const look = (): void => {
      if (stopped || controller.signal.aborted) return;
      cancel = timer.after(CANCEL_WATCH_MS, () => {
        void this.jobs.get(jobId).then(
          (job) => {
            if (stopped || controller.signal.aborted) return;
            if (job?.status === 'cancelled') {
              log.info({}, 'job cancelled elsewhere; stopping it');
              controller.abort('cancelled');
            } else look();
          },
          (error: unknown) => {
            log.warn({ err: error }, 'could not read the job to see whether it was cancelled');
            look();
          },
        );
      });
    };
    look();
    return () => {
      stopped = true;
      cancel();
    };
  }

  /** Aborts the job if this process is running it (a cancellation). */
  abort(jobId: string): boolean {
    const controller = this.#running.get(jobId);
    controller?.abort('cancelled');
    return controller !== undefined;
  }

  /**
   * Stops every job this process runs, for a stop of the service whose grace period ran
   * out: their agents are killed, their work committed, and the jobs marked failed as
   * interrupted. Returns how many were running.
   */
  abortAll(): number {
    for (const controller of this.#running.values()) controller.abort(SHUTDOWN);
    return this.#running.size;
  }

  /**
   * Stores a change. One whose status the job's state no longer allows (it was cancelled after its
   * agent finished, before this report) keeps that state: its status and error are dropped, and
   * what the run made (log, summary, runUrl, prUrl) is stored all the same, as a cancel's is.
   */
  async #report(jobId: string, change: JobChange): Promise<void> {
    await this.jobs.modify(jobId, (job) => {
      const at = this.clock.now();
      try {
        return applyChange(job, change, at);
      } catch (error) {
        if (!(isDomainError(error) && error.code === 'conflict')) throw error;
        const { status: _status, error: _error, ...made } = change;
        return applyChange(job, made, at);
      }
    });
  }
}
