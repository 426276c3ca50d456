import type { Clock } from '../../ports/clock.js';
import type { JobRepository } from '../../ports/job-repository.js';
import type { Logger } from '../../ports/logger.js';
import type { TaskQueue } from '../../ports/task-queue.js';
import { queueChatJobNotice } from './notify-chat-of-job.js';

/** A chat job finished for longer than this without its notice recorded as queued may have lost it (see RequeueLostJobNotices). */
export const NOTICE_LOST_AFTER_MS = 60_000;
/** The most jobs looked at per pass. */
const LOOKED_AT = 500;

/**
 * A chat job's status is stored, then its notice is queued (NotifyingJobRepository, then
 * queueChatJobNotice), then the job is marked as notified: a process killed between the first
 * two lost the notice. Each pass (at start-up and every few minutes, on any replica) queues the
 * notice of every finished chat job not marked for over NOTICE_LOST_AFTER_MS, under the job's
 * own key, and marks it. A job whose notice is stored already (killed between the last two) gets
 * no second one; a marked job is never looked at again, so a notice sent long ago, whose task
 * the queue no longer keeps, is not sent twice.
 */
export class RequeueLostJobNotices {
  constructor(
    private readonly jobs: JobRepository,
    private readonly queue: TaskQueue,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** Returns how many notices it queued (the jobs that had none). */
  async execute(): Promise<number> {
    const changedBefore = new Date(this.clock.now().getTime() - NOTICE_LOST_AFTER_MS);
    const due = await this.jobs.listAwaitingNotice({ changedBefore, limit: LOOKED_AT });
    let queued = 0;
    for (const job of due) {
      if ((await queueChatJobNotice(this.queue, this.jobs, this.clock, job)) === null) continue;
      queued++;
      this.logger.warn({ jobId: job.id }, 'chat job finished without its notice queued (a stop came between); queued now');
    }
    return queued;
  }
}
