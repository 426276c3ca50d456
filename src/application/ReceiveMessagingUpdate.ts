import { DomainError } from '../domain/errors/DomainError.js';
import type { ChannelMessage } from '../domain/messaging/ChannelMessage.js';
import { normalizeUpdate } from '../domain/messaging/normalizeUpdate.js';
import type { RequestSnapshot } from '../domain/templates/RequestSnapshot.js';
import type { ApiKeyCrypto } from '../ports/ApiKeyCrypto.js';
import type { BotTokenStore } from '../ports/BotTokenStore.js';
import type { Logger } from '../ports/Logger.js';
import type { MessagingChannel } from '../ports/MessagingChannel.js';
import type { TaskQueue } from '../ports/TaskQueue.js';
import type { FireTriggers } from './FireTriggers.js';

/** Chat messages: one chat's messages are answered one at a time, in order, across every replica. */
export const CHAT_MESSAGE_QUEUE = 'chat-message-ordered';
/** The queue chat messages went to before it was ordered across replicas: drained, no longer filled. */
export const LEGACY_CHAT_MESSAGE_QUEUE = 'chat-message';

export interface ChatMessageTask {
  readonly message: ChannelMessage;
}

export interface MessagingDelivery {
  /** The platform's secret header (`X-Telegram-Bot-Api-Secret-Token`). */
  readonly secret: string | undefined;
  readonly update: unknown;
  readonly watchPath: string;
  readonly request: RequestSnapshot | (() => RequestSnapshot);
}

/**
 * SPEC 4.4: the platform's secret is checked before anything else; without a bot token
 * nothing happens; an update that normalizes to nothing, or was seen before, is only
 * acknowledged; any other is stored as a durable task and acknowledged at once.
 */
export class ReceiveMessagingUpdate {
  constructor(
    private readonly channel: MessagingChannel,
    private readonly webhookSecret: string | undefined,
    private readonly crypto: ApiKeyCrypto,
    private readonly tokens: BotTokenStore,
    private readonly queue: TaskQueue,
    private readonly fireTriggers: FireTriggers,
    private readonly logger: Logger,
  ) {}

  async execute(delivery: MessagingDelivery): Promise<{ ok: true }> {
    if (this.webhookSecret !== undefined && !this.crypto.equal(delivery.secret ?? '', this.webhookSecret)) {
      throw new DomainError('unauthorized', 'Unauthorized');
    }
    if ((await this.tokens.current()) === undefined) return { ok: true };
    await this.fireTriggers.execute({ watchPath: delivery.watchPath, request: delivery.request });
    const message = normalizeUpdate(delivery.update, { userId: this.channel.id, chatTitle: this.channel.title });
    if (message === null) return { ok: true };
    // The update number is the idempotency key: a redelivered update is stored once (the queue
    // keeps the key for days after the task ran; the platform stops redelivering within a day).
    const stored = await this.queue.enqueue(CHAT_MESSAGE_QUEUE, { message } satisfies ChatMessageTask, {
      group: `${this.channel.id}:${message.threadId}`,
      key: `${this.channel.id}:update:${message.metadata.updateId}`,
    });
    if (stored === null) this.logger.info({ updateId: message.metadata.updateId }, 'repeated update acknowledged, not processed again');
    return { ok: true };
  }
}
