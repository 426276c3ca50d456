import type { Job } from '../../domain/jobs/job.js';
import { parseChatThread } from '../../domain/messaging/chat-thread.js';
import { markdownLiteral } from '../../domain/messaging/markdown-literal.js';
import type { Clock } from '../../ports/clock.js';
import type { JobRepository } from '../../ports/job-repository.js';
import type { Logger } from '../../ports/logger.js';
import type { TaskQueue } from '../../ports/task-queue.js';
import type { MessagingChannels } from './messaging-channels.js';

/** A chat job that finished: its notice is a durable task, sent by whichever worker takes it. */
export const CHAT_JOB_FINISHED_QUEUE = 'chat-job-finished';

export interface ChatJobFinishedTask {
  readonly jobId: string;
}

/** The key of a job's notice task: one task per job, however often it is queued. */
export const chatJobNoticeKey = (jobId: string): string => `chat-job-finished:${jobId}`;

/**
 * Stores the notice of a finished chat job as a task, once per job however often it is asked
 * (while the queue keeps the task), then records on the job that it is queued. A process killed
 * before the record leaves the job listed by `JobRepository.listAwaitingNotice`, and
 * RequeueLostJobNotices queues it again: the task's key keeps it to one task. Resolves to the
 * task's id, or null when the task was stored already.
 */
export const queueChatJobNotice = async (queue: TaskQueue, jobs: JobRepository, clock: Clock, job: Job): Promise<string | null> => {
  const taskId = await queue.enqueue(CHAT_JOB_FINISHED_QUEUE, { jobId: job.id } satisfies ChatJobFinishedTask, { key: chatJobNoticeKey(job.id) });
  await jobs.markNoticeQueued(job.id, clock.now());
  return taskId;
};

/**
 * The Markdown of a finished job's notice: the gateway's own lines first (`Job <id> <status>.`,
 * then the error of a job that did not succeed) and last (`Pull request: <url>`, else `Branch:
 * <branch>`), and between them the job's summary, labelled as the agent's and quoted whole.
 * The summary is what the job's agent wrote (logs/<id>/summary.md), so possibly what a hostile
 * prompt had it write: put among the gateway's lines as it stands, it could forge them (`Job <id>
 * succeeded.`, `Pull request: <a phishing page>` on a failed job). Every one of its lines is
 * prefixed with `> `, so none of it stands outside the quote (a blank line of it too: `>`), and a
 * blank line ends the quote before the last line, which Markdown would otherwise read as a lazy
 * continuation of the quote's last paragraph. Telegram shows the quote as a quote block, Slack as
 * `>` lines; a quote inside the summary is part of the one quote on both.
 *
 * The error can hold the agent's text too (the output of a git command of the runner's, of a
 * program the agent left in the repository, say): it is put on its one line, after `Error: `,
 * every line break (and any other control character) of it a space, and cut, so that no line
 * of it stands at the start of a line of the notice as the gateway's.
 *
 * Every value put in the gateway's lines (the id, status, error, address and branch) is written
 * as literal Markdown (markdownLiteral): none of it is read as Markdown, so an error holding a
 * link (`git config 'hook.[Re-authorize the gateway](https://evil.example/login).command' x` names
 * such a key in a failed job's error) shows as typed, not as a link of the gateway's. The address
 * of a pull request stays one that Telegram and Slack link by themselves: a bare URL, as shown.
 */
export const jobNoticeMarkdown = (job: Job): string => {
  const head = [
    `Job ${markdownLiteral(job.id)} ${markdownLiteral(job.status)}.`,
    ...(job.error && job.status !== 'succeeded' ? [`Error: ${markdownLiteral(oneLine(job.error))}`] : []),
  ];
  const summary = job.summary?.trim()
    ? [
        '',
        'Summary written by the agent:',
        ...job.summary
          .trim()
          .split(/\r\n?|\n/)
          .map((line) => `> ${line}`.trimEnd()),
        '',
      ]
    : [];
  return [...head, ...summary, job.prUrl ? `Pull request: ${markdownLiteral(job.prUrl)}` : `Branch: ${markdownLiteral(job.branch)}`].join('\n');
};

const ERROR_LIMIT = 500;

/** `text` on one line: runs of white space, control and line-separating characters a space; cut at ERROR_LIMIT. */
const oneLine = (text: string): string => {
  const line = text.replace(/[\s\p{Cc}\u0085\u2028\u2029]+/gu, ' ').trim();
  return line.length > ERROR_LIMIT ? `${line.slice(0, ERROR_LIMIT - 3)}...` : line;
};

/**
 * Sends the conversation a job was created from a short summary of the job once it finished,
 * with the pull request link. Run from a task (queueChatJobNotice), so that a stop or the
 * platform being down for a while loses no notice: a notice none of whose parts could be sent
 * throws, and the queue tries it again later. One whose first part went out is not sent again
 * (a part would show twice): the parts left are given up, and logged.
 */
export class NotifyChatOfJob {
  constructor(
    private readonly channels: MessagingChannels,
    private readonly clock: Clock,
    private readonly logger?: Logger,
  ) {}

  /**
   * The task's handler: the job as it is stored now. The job is marked as having its notice
   * queued before anything is sent, if it is not yet: a process killed after storing the task
   * and before marking the job (queueChatJobNotice) left it unmarked, and were the task run and
   * then gone from the queue (it keeps finished tasks for days) before RequeueLostJobNotices
   * looked, that sweep would queue the notice a second time under a key no task holds any more.
   */
  async run(task: ChatJobFinishedTask, jobs: JobRepository): Promise<void> {
    const job = await jobs.get(task.jobId);
    if (job === null) return;
    await jobs.markNoticeQueued(job.id, this.clock.now());
    await this.execute(job);
  }

  async execute(job: Job): Promise<void> {
    if (job.source.kind !== 'chat') return;
    const thread = parseChatThread(job.source.thread);
    const channel = thread && this.channels.find(thread.channel);
    if (thread === undefined || channel === undefined) return;
    const token = await channel.credentials.current();
    if (token === undefined) return;
    const target = { chatId: thread.chatId, ...(thread.topicId !== undefined && { topicId: thread.topicId }) };
    // A summary can be long and is the agent's Markdown: formatted and split like a reply.
    const parts = channel.platform.formatReply(jobNoticeMarkdown(job));
    for (const [index, message] of parts.entries()) {
      try {
        await channel.platform.sendMessage(token, target, message);
      } catch (error) {
        if (index === 0) throw error;
        this.logger?.error({ err: error, jobId: job.id, part: index + 1, parts: parts.length }, 'could not send the rest of a job notice; given up');
        return;
      }
    }
  }
}
