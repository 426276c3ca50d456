import { DomainError } from '../domain/errors/DomainError.js';
import type { ChannelMessage } from '../domain/messaging/ChannelMessage.js';
import { normalizeUpdate } from '../domain/messaging/normalizeUpdate.js';
import { storableMessage } from '../domain/messaging/storableMessage.js';
import type { RequestSnapshot } from '../domain/templates/RequestSnapshot.js';
import type { ApiKeyCrypto } from '../ports/ApiKeyCrypto.js';
import type { BotTokenStore } from '../ports/BotTokenStore.js';
import type { DeliveryLog } from '../ports/DeliveryLog.js';
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

/** The platform's number of an update, read from the raw update (also one that normalizes to nothing). */
const updateIdOf = (update: unknown): number | undefined => {
  if (typeof update !== 'object' || update === null || !Object.hasOwn(update, 'update_id')) return undefined;
  const id = (update as { update_id: unknown }).update_id;
  return typeof id === 'number' && Number.isSafeInteger(id) && id >= 0 ? id : undefined;
};

/**
 * SPEC 4.4, issue 11: the platform's secret is checked before anything else — the configured
 * MESSAGING_WEBHOOK_SECRET, else the one the last registration generated; with neither,
 * every update is refused (fail closed). Without a bot token nothing happens. Each update is
 * then recorded by its `update_id` before anything runs, so a redelivery (the platform resends
 * until it gets a 2xx) runs nothing twice: neither triggers nor the chat answer. A message is
 * stored as a durable task and acknowledged at once.
 */
export class ReceiveMessagingUpdate {
  constructor(
    private readonly channel: MessagingChannel,
    private readonly webhookSecret: string | undefined,
    private readonly crypto: ApiKeyCrypto,
    private readonly tokens: BotTokenStore,
    private readonly deliveries: DeliveryLog,
    private readonly queue: TaskQueue,
    private readonly fireTriggers: FireTriggers,
    private readonly logger: Logger,
  ) {}

  /**
   * Checks the secret header alone, in constant time; the HTTP adapter calls it before the
   * body is read, so a caller without the secret never gets the body parsed or decompressed.
   * @throws DomainError `unauthorized` when it differs, or when no secret is configured nor stored.
   */
  async authorize(secretHeader: string | undefined): Promise<void> {
    const secret = this.webhookSecret ?? (await this.tokens.webhookSecret());
    if (secret === undefined || !this.crypto.equal(secretHeader ?? '', secret)) {
      throw new DomainError('unauthorized', 'Unauthorized');
    }
  }

  /**
   * Start-up check: warns when a bot token is in force but no webhook secret is configured
   * nor stored (a token registered with a MESSAGING_WEBHOOK_SECRET that is no longer set):
   * every update is then refused. Returns whether it warned.
   */
  async warnIfRefusingEverything(): Promise<boolean> {
    if (this.webhookSecret !== undefined || (await this.tokens.current()) === undefined || (await this.tokens.webhookSecret()) !== undefined) {
      return false;
    }
    this.logger.warn(
      { channel: this.channel.id },
      'a bot token is registered but no webhook secret is set nor stored: every chat update is refused (401) until the webhook is registered again (POST /api/messaging/register) or MESSAGING_WEBHOOK_SECRET is set',
    );
    return true;
  }

  async execute(delivery: MessagingDelivery): Promise<{ ok: true }> {
    await this.authorize(delivery.secret);
    if ((await this.tokens.current()) === undefined) return { ok: true };
    const updateId = updateIdOf(delivery.update);
    if (updateId === undefined) throw new DomainError('invalid_input', 'Missing update_id');
    const deliveryId = `${this.channel.id}:update:${updateId}`;
    if (!(await this.deliveries.recordFirst(deliveryId, 'update'))) {
      this.logger.info({ updateId }, 'repeated update acknowledged, not processed again');
      return { ok: true };
    }
    try {
      const message = normalizeUpdate(delivery.update, { userId: this.channel.id, chatTitle: this.channel.title });
      // The chat task first: it is idempotent by its key, so if the triggers cannot be stored
      // and the platform redelivers, the message is still stored (and answered) once.
      if (message !== null) {
        await this.queue.enqueue(CHAT_MESSAGE_QUEUE, { message: storableMessage(message) } satisfies ChatMessageTask, {
          group: `${this.channel.id}:${message.threadId}`,
          key: `${this.channel.id}:update:${updateId}`,
        });
      }
      await this.fireTriggers.execute({ watchPath: delivery.watchPath, request: delivery.request });
    } catch (error) {
      // Nothing was (fully) stored: forget the update so the platform's retry is accepted.
      await this.deliveries.forget(deliveryId).catch(() => undefined);
      throw error;
    }
    return { ok: true };
  }
}
