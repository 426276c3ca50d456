import type { Job } from '../domain/jobs/Job.js';
import type { BotTokenStore } from '../ports/BotTokenStore.js';
import type { MessagingChannel } from '../ports/MessagingChannel.js';

/** Sends a chat a short summary of its finished job, with the pull request link. */
export class NotifyChatOfJob {
  constructor(
    private readonly channel: MessagingChannel,
    private readonly tokens: BotTokenStore,
  ) {}

  async execute(job: Job): Promise<void> {
    if (job.source.kind !== 'chat') return;
    const [channel, ...rest] = job.source.thread.split(':');
    if (channel !== this.channel.id) return;
    const token = await this.tokens.current();
    if (token === undefined) return;
    const lines = [
      `Job ${job.id} ${job.status}.`,
      job.summary ? job.summary : undefined,
      job.error && job.status !== 'succeeded' ? `Error: ${job.error}` : undefined,
      job.prUrl ? `Pull request: ${job.prUrl}` : `Branch: ${job.branch}`,
    ].filter((line): line is string => line !== undefined);
    await this.channel.sendMessage(token, { chatId: rest.join(':') }, { plain: lines.join('\n') });
  }
}
