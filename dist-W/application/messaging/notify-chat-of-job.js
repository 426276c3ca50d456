import { parseChatThread } from '../../domain/messaging/chat-thread.js';
/** Sends the conversation a job was created from a short summary of the job once it finished, with the pull request link. */
export class NotifyChatOfJob {
    channels;
    constructor(channels) {
        this.channels = channels;
    }
    async execute(job) {
        if (job.source.kind !== 'chat')
            return;
        const thread = parseChatThread(job.source.thread);
        const channel = thread && this.channels.find(thread.channel);
        if (thread === undefined || channel === undefined)
            return;
        const token = await channel.credentials.current();
        if (token === undefined)
            return;
        const lines = [
            `Job ${job.id} ${job.status}.`,
            job.summary ? job.summary : undefined,
            job.error && job.status !== 'succeeded' ? `Error: ${job.error}` : undefined,
            job.prUrl ? `Pull request: ${job.prUrl}` : `Branch: ${job.branch}`,
        ].filter((line) => line !== undefined);
        const target = { chatId: thread.chatId, ...(thread.topicId !== undefined && { topicId: thread.topicId }) };
        // A summary can be long and is the agent's Markdown: formatted and split like a reply.
        for (const message of channel.platform.formatReply(lines.join('\n')))
            await channel.platform.sendMessage(token, target, message);
    }
}
//# sourceMappingURL=notify-chat-of-job.js.map