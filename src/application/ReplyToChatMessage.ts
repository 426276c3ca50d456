import type { Attachment, ChannelMessage } from '../domain/messaging/ChannelMessage.js';
import type { AiImage } from '../ports/AiClient.js';
import type { BotTokenStore } from '../ports/BotTokenStore.js';
import type { Logger } from '../ports/Logger.js';
import type { MessagingChannel, OutgoingMessage, ReplyTarget } from '../ports/MessagingChannel.js';
import type { ChatAgent } from './ChatAgent.js';
import type { ChatMessageTask } from './ReceiveMessagingUpdate.js';

export const APOLOGY = 'Sorry, I encountered an error processing your message.';
export const ACKNOWLEDGEMENT = '👀';
const TYPING_EVERY_MS = 4000;
const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
const MAX_TEXT_FILE_BYTES = 512 * 1024;
const TEXT_TYPES = /^(text\/|application\/(json|xml|x-yaml|yaml|javascript|x-sh|toml|csv|sql))/;
const TEXT_NAMES = /\.(txt|md|json|ya?ml|xml|csv|log|ts|js|py|go|rs|java|c|h|cpp|sh|toml|ini|sql|html|css)$/i;

export interface ChatChannelSettings {
  /** Chats allowed to talk to the bot; any other gets one hint and never reaches the AI. */
  readonly allowedChatIds: ReadonlySet<string>;
}

/**
 * Background processing of one chat message (SPEC 4.4): acknowledge, keep a typing
 * indicator up, ask the chat agent, reply (split to the platform's limit, formatted with a
 * plain-text fallback), and stop the indicator whatever happens. A failed AI call gets the
 * fixed apology; the cause is only logged.
 */
export class ReplyToChatMessage {
  constructor(
    private readonly channel: MessagingChannel,
    private readonly tokens: BotTokenStore,
    private readonly agent: ChatAgent,
    private readonly settings: ChatChannelSettings,
    private readonly logger: Logger,
  ) {}

  async execute(task: ChatMessageTask): Promise<void> {
    const { message } = task;
    const log = this.logger.child({ channel: this.channel.id, chatId: message.threadId, updateId: message.metadata.updateId });
    const token = await this.tokens.current();
    if (token === undefined) return log.warn({}, 'no bot token any more; message dropped');
    const target: ReplyTarget = { chatId: message.threadId, topicId: message.metadata.topicId };

    if (!this.settings.allowedChatIds.has(message.threadId)) {
      log.info({}, 'message from a chat that is not allowed');
      await this.channel.sendMessage(token, target, {
        plain: `This chat is not allowed to use this bot. Its id is ${message.threadId}: add it to MESSAGING_ALLOWED_CHAT_IDS to allow it.`,
      });
      return;
    }

    await this.channel.react(token, message.threadId, message.metadata.messageId, ACKNOWLEDGEMENT).catch((error: unknown) => {
      log.warn({ err: error }, 'could not acknowledge the message');
    });
    const typing = this.#keepTyping(token, target, log);
    try {
      const { text, images, unreadable } = await this.#content(token, message, log);
      let reply: string;
      try {
        reply = await this.agent.execute({
          threadId: `${this.channel.id}:${message.threadId}`,
          text,
          images,
          metadata: { userId: this.channel.id, chatTitle: this.channel.title },
        });
        if (unreadable.length > 0) reply = `(I could not read ${unreadable.join(', ')}.)\n\n${reply}`;
      } catch (error) {
        log.error({ err: error }, 'AI call failed');
        reply = APOLOGY;
      }
      typing.stop();
      const parts = this.channel.formatReply(reply);
      // From here on the agent has run (its tools too) and the exchange is remembered: a
      // failure must not make the task run again, so a send the channel could not make is given up.
      for (const part of parts) {
        if (!(await this.#deliver(token, target, part, log))) return;
      }
      log.info({ parts: parts.length }, 'chat reply sent');
    } finally {
      typing.stop();
    }
  }

  /** Sends one part (the channel tries transient failures again); false when it could not be delivered. */
  async #deliver(token: string, target: ReplyTarget, part: OutgoingMessage, log: Logger): Promise<boolean> {
    try {
      await this.channel.sendMessage(token, target, part);
      return true;
    } catch (error) {
      log.error({ err: error }, 'could not deliver the reply; given up');
      return false;
    }
  }

  #keepTyping(token: string, target: ReplyTarget, log: Logger): { stop(): void } {
    const send = (): void => void this.channel.sendTyping(token, target).catch((error: unknown) => log.debug({ err: error }, 'typing indicator failed'));
    send();
    const timer = setInterval(send, TYPING_EVERY_MS);
    return { stop: () => clearInterval(timer) };
  }

  /** The text for the AI: the message, readable attachments inlined, the others described. */
  async #content(token: string, message: ChannelMessage, log: Logger): Promise<{ text: string; images: AiImage[]; unreadable: string[] }> {
    const images: AiImage[] = [];
    const notes: string[] = [];
    const unreadable: string[] = [];
    for (const attachment of message.attachments) {
      const label = describe(attachment);
      try {
        if (attachment.kind === 'photo' || (attachment.kind === 'document' && attachment.mimeType?.startsWith('image/'))) {
          if ((attachment.size ?? 0) > MAX_IMAGE_BYTES) throw new Error('too large');
          const file = await this.channel.download(token, attachment.fileId);
          images.push({ mediaType: attachment.mimeType ?? 'image/jpeg', data: file.data });
          continue;
        }
        if (attachment.kind === 'document' && (TEXT_TYPES.test(attachment.mimeType ?? '') || TEXT_NAMES.test(attachment.fileName ?? ''))) {
          if ((attachment.size ?? 0) > MAX_TEXT_FILE_BYTES) throw new Error('too large');
          const file = await this.channel.download(token, attachment.fileId);
          notes.push(`Attached file ${attachment.fileName ?? file.path}:\n${new TextDecoder().decode(file.data)}`);
          continue;
        }
      } catch (error) {
        log.warn({ err: error, kind: attachment.kind }, 'could not read an attachment');
      }
      notes.push(`[The user attached ${label}, which you cannot read.]`);
      unreadable.push(label);
    }
    const text = [message.text, ...notes].filter((part) => part !== '').join('\n\n');
    return { text: text || '(no text)', images, unreadable };
  }
}

const describe = (attachment: Attachment): string => {
  const name = attachment.fileName ? ` "${attachment.fileName}"` : '';
  switch (attachment.kind) {
    case 'voice':
      return 'a voice message';
    case 'video_note':
      return 'a video message';
    case 'document':
      return `a file${name}`;
    default:
      return `a${/^[aeiou]/.test(attachment.kind) ? 'n' : ''} ${attachment.kind}${name}`;
  }
};
