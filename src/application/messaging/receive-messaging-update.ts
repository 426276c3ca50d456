import { DomainError } from '../../domain/errors/domain-error.js';
import type { ChannelMessage } from '../../domain/messaging/channel-message.js';
import { storableMessage } from '../../domain/messaging/storable-message.js';
import type { RequestSnapshot } from '../../domain/templates/request-snapshot.js';
import { storableText } from '../../domain/text/storable-text.js';
import type { AlbumStore } from '../../ports/album-store.js';
import type { Clock } from '../../ports/clock.js';
import type { DeliveryLog } from '../../ports/delivery-log.js';
import type { Logger } from '../../ports/logger.js';
import type { ChoiceMade, InboundRequest, ParsedDelivery } from '../../ports/messaging-channel.js';
import type { TaskQueue } from '../../ports/task-queue.js';
import type { FireTriggers } from '../triggers/fire-triggers.js';
import type { ChatChannel, MessagingChannels } from './messaging-channels.js';
import { NotAllowedNotices } from './not-allowed-notices.js';

/** Chat messages: one chat's messages are answered one at a time, in order, across every replica. */
export const CHAT_MESSAGE_QUEUE = 'chat-message-ordered';
/** The queue chat messages went to before it was ordered across replicas: drained, no longer filled. */
export const LEGACY_CHAT_MESSAGE_QUEUE = 'chat-message';

export interface ChatMessageTask {
  /** Its `metadata.userId` is the channel's id. */
  readonly message: ChannelMessage;
  /** Set on the task that only tells a chat it is not allowed (its message holds ids only): never a question for the model. */
  readonly notice?: 'not-allowed';
  /**
   * When the task was stored (ISO 8601): an attempt run again later than the chat's job keys are
   * kept is not answered (ReplyToChatMessage). Absent on tasks stored before it was recorded.
   */
  readonly queuedAt?: string;
}

/**
 * The key the messages of an album are stored under (`<channel>:<album id>`); undefined for a
 * message in no album, and for one whose ids are too long to store (it is answered on its own).
 */
export const albumKey = (channel: string, message: ChannelMessage): string | undefined => {
  const { albumId, messageId } = message.metadata;
  if (albumId === undefined) return undefined;
  const key = `${channel}:${albumId}`;
  return key.length <= 300 && messageId.length <= 100 ? key : undefined;
};

const storable = (value: string | undefined): string | undefined => (value === undefined ? undefined : storableText(value));

/**
 * The delivery with every text taken from the platform's payload made storable (NUL and lone
 * surrogates → U+FFFD, see storableMessage): its id and message key (the delivery log's and the
 * queue's keys), its message, and a press's ids and names (the log, the decision's record). A
 * real platform sends no such id; one that does (a forged update, with the secret) is still
 * taken in rather than failing every insert, and so every retry of the platform, with a 500.
 */
export const storableDelivery = (delivery: ParsedDelivery): ParsedDelivery => {
  const { choice } = delivery;
  return {
    deliveryId: storableText(delivery.deliveryId),
    message: delivery.message === null ? null : storableMessage(delivery.message),
    ...(delivery.messageKey !== undefined && { messageKey: storable(delivery.messageKey) }),
    ...(choice !== undefined && {
      choice: {
        data: storableText(choice.data),
        chatId: storableText(choice.chatId),
        userId: storableText(choice.userId),
        messageId: storableText(choice.messageId),
        ...(choice.userName !== undefined && { userName: storable(choice.userName) }),
        ...(choice.pressId !== undefined && { pressId: storable(choice.pressId) }),
        ...(choice.messageText !== undefined && { messageText: storable(choice.messageText) }),
      },
    }),
  };
};

/** The triggers a delivery fires: those watching the endpoint it arrived on (and the other paths naming that endpoint). */
export interface DeliveryTriggers {
  readonly watchPath: string;
  readonly sameEndpointAs?: readonly string[];
  readonly request: RequestSnapshot | (() => RequestSnapshot);
}

export interface MessagingDelivery {
  readonly channel: string;
  readonly request: InboundRequest;
  /**
   * Parses the request's body, called only once the request is verified: its value, or a
   * DomainError thrown for a body that cannot be taken (a 400, or a 415 for one in a charset we
   * do not take). A caller without the secret so never has its body parsed, and gets its 401
   * whatever it sent.
   */
  readonly parseBody: () => unknown;
  readonly triggers: DeliveryTriggers;
}

/** What the webhook answers: `{ok: true}`, or the platform's handshake answer. */
export type DeliveryAnswer = { readonly kind: 'ok' } | { readonly kind: 'handshake'; readonly body: unknown };

/**
 * SPEC 4.4, issue 11, for every channel of the registry: the platform's secret is checked
 * before anything else — the channel's configured secret, else the one its last registration
 * generated; with neither, every request is refused (fail closed). Without a bot token
 * nothing happens. Each delivery is recorded by its id before anything runs, so a redelivery
 * (a platform resends until it gets a 2xx) runs nothing twice: neither triggers nor the chat
 * answer. A message is stored as a durable task and acknowledged at once.
 */
export class ReceiveMessagingUpdate {
  constructor(
    private readonly channels: MessagingChannels,
    private readonly deliveries: DeliveryLog,
    private readonly queue: TaskQueue,
    private readonly fireTriggers: FireTriggers,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** Takes a press of a button the bot sent (an approval's); without it presses are acknowledged and ignored. */
    private readonly onChoice?: (channel: ChatChannel, choice: ChoiceMade) => Promise<void>,
    /** Where each message of an album is stored as it arrives (the album's one answer reads them all); without it, an album is answered from the message that queued its answer. */
    private readonly albums?: AlbumStore,
    /** Which chats that are not allowed were told so lately (in this process's memory). */
    private readonly notAllowed: NotAllowedNotices = new NotAllowedNotices(),
  ) {}

  /**
   * Checks what the headers alone can tell, in constant time; the HTTP adapter calls it before
   * the body is read, so a caller without the secret never gets the body parsed or decompressed.
   * @throws DomainError `unauthorized` when the check fails, or when no secret is configured nor stored.
   */
  async authorize(channelId: string, headers: InboundRequest['headers']): Promise<void> {
    const channel = this.channels.get(channelId);
    await this.#check(channel, (secret) => channel.platform.checkHeaders(headers, secret, this.clock.now()));
  }

  /**
   * Start-up check: warns, per channel, when a bot token is in force but no webhook secret is
   * configured nor stored (a token registered while the secret variable was set, which is
   * unset since): every update is then refused. Returns the ids of the channels it warned about.
   */
  async warnIfRefusingEverything(): Promise<string[]> {
    const warned: string[] = [];
    for (const { platform, credentials, settings } of this.channels.all) {
      if (settings.mode === 'polling') continue;
      if (settings.webhookSecret !== undefined || (await credentials.current()) === undefined || (await credentials.webhookSecret()) !== undefined) continue;
      const register = platform.registration ? `the webhook is registered again (POST /api/messaging/${platform.id}/register) or ` : '';
      this.logger.warn(
        { channel: platform.id },
        `a bot token is registered but no webhook secret is set nor stored: every chat update is refused (401) until ${register}${settings.variables.webhookSecret} is set`,
      );
      warned.push(platform.id);
    }
    return warned;
  }

  async execute(delivery: MessagingDelivery): Promise<DeliveryAnswer> {
    const channel = this.channels.get(delivery.channel);
    const now = this.clock.now();
    const { request } = delivery;
    await this.#check(channel, (secret) => channel.platform.checkHeaders(request.headers, secret, now) && channel.platform.verify(request, secret, now));
    const body = delivery.parseBody();
    const handshake = channel.platform.handshake(body);
    if (handshake !== undefined) return { kind: 'handshake', body: handshake };
    if ((await channel.credentials.current()) === undefined) return { kind: 'ok' };
    await this.accept(channel, channel.platform.parse(body), delivery.triggers);
    return { kind: 'ok' };
  }

  /**
   * Takes a verified delivery in: recorded by its id, its message stored as a task of its chat,
   * and the triggers fired. A message's three writes go out together and the answer waits for the
   * slowest, not for each in turn (one round trip to the database instead of three; bench/README.md,
   * "Measurements behind the code"): each is stored once however often the delivery comes — the
   * record and the task by the delivery's id (the task's key), the fired request by the id named
   * from it —, so none needs another to be stored first, and a repeat stores them again (nothing
   * new), since a stop between them would otherwise lose the message for good. When the work
   * cannot be stored, the delivery is forgotten again so that the platform's retry runs. A button
   * press is recorded first: it is decided once, by the delivery that recorded it.
   */
  async accept(channel: ChatChannel, parsed: ParsedDelivery, triggers?: DeliveryTriggers): Promise<void> {
    const { platform } = channel;
    const delivery = storableDelivery(parsed);
    const deliveryKey = `${platform.id}:update:${delivery.deliveryId}`;
    const recording = this.deliveries.recordFirst(deliveryKey, 'update');
    if (delivery.choice !== undefined) {
      const first = await recording;
      if (!first) {
        // A press is decided once; one lost to a stop is pressed again (a new update).
        this.logger.info({ channel: platform.id, updateId: delivery.deliveryId }, 'repeated update acknowledged, not processed again');
        return;
      }
      // A button press is no message: it fires no trigger and is not answered by the agent.
      try {
        await this.onChoice?.(channel, delivery.choice);
      } catch (error) {
        await this.deliveries.forget(deliveryKey).catch(() => undefined);
        throw error;
      }
      return;
    }
    const [recorded, task, fired] = await Promise.allSettled([
      recording,
      this.#storeTask(channel, delivery, deliveryKey),
      // Kept in the delivery log whether or not a trigger fires (a third write per update: its
      // cost is in bench/README.md, "Measurements behind the code").
      triggers === undefined ? undefined : this.fireTriggers.execute({ ...triggers, keep: true, deliveryKey }),
    ]);
    const failed = [task, fired, recorded].find((outcome) => outcome.status === 'rejected');
    if (failed !== undefined) {
      // Not (fully) stored: forget the delivery so the platform's retry is accepted. The parts
      // that were stored are found again by that retry, and stored once.
      if (recorded.status === 'fulfilled' && recorded.value) await this.deliveries.forget(deliveryKey).catch(() => undefined);
      throw failed.reason;
    }
    if (recorded.status === 'fulfilled' && !recorded.value) {
      const stored = task.status === 'fulfilled' && task.value !== null;
      this.logger.info(
        { channel: platform.id, updateId: delivery.deliveryId, stored },
        stored ? 'repeated update: its message was not stored before (a stop came between), stored now' : 'repeated update acknowledged, not processed again',
      );
    }
  }

  /**
   * A delivery's message stored as a task of its chat (idempotent by its key): its id, or null when
   * nothing was stored (stored before, a chat told already that it is not allowed, no message).
   */
  async #storeTask(channel: ChatChannel, delivery: ParsedDelivery, deliveryKey: string): Promise<string | null> {
    const { platform } = channel;
    const { message } = delivery;
    if (message === null) return null;
    if (!channel.settings.allowedChatIds.has(message.threadId)) return this.#queueNotAllowedNotice(channel, message);
    // A message of an album is stored first, whether or not it queues the album's answer (the
    // first of its messages does): the answer reads every message stored for the album.
    const album = albumKey(platform.id, message);
    if (album !== undefined && this.albums !== undefined) await this.albums.add(album, message.metadata.messageId, message, this.clock.now());
    return this.queue.enqueue(CHAT_MESSAGE_QUEUE, { message, queuedAt: this.clock.now().toISOString() } satisfies ChatMessageTask, {
      group: `${platform.id}:${message.threadId}`,
      // One message carried by two deliveries (a mention of the bot) is answered once.
      key: delivery.messageKey === undefined ? deliveryKey : `${platform.id}:message:${delivery.messageKey}`,
    });
  }

  /**
   * A message of a chat that is not allowed is not stored for the model (nor in an album): at
   * most once a day per chat (NotAllowedNotices, and the task's key, of the chat and the UTC day)
   * a task is queued that tells the chat its id, carrying the message's ids only (no text, no
   * files). Anyone can add the bot to a group: a stranger flooding groups with messages so gets a
   * notice a day in each, not one per message, which would spend the bot's rate limit at the
   * platform and hold workers in its waits (docs/chat.md, "Allowed chats"). Its id, or null when
   * the chat was told already. `received` is storable already (storableDelivery).
   */
  async #queueNotAllowedNotice(channel: ChatChannel, received: ChannelMessage): Promise<string | null> {
    const { platform } = channel;
    const now = this.clock.now();
    if (!this.notAllowed.take(platform.id, received.threadId, now)) {
      this.logger.debug({ channel: platform.id, chatId: received.threadId }, 'message from a chat that is not allowed; told already, dropped');
      return null;
    }
    const { albumId: _album, replyToId: _reply, from: _from, ...metadata } = received.metadata;
    const message: ChannelMessage = { threadId: received.threadId, text: '', attachments: [], metadata };
    const day = now.toISOString().slice(0, 10);
    try {
      return await this.queue.enqueue(CHAT_MESSAGE_QUEUE, { message, notice: 'not-allowed' } satisfies ChatMessageTask, {
        group: `${platform.id}:${received.threadId}`,
        key: `${platform.id}:not-allowed:${received.threadId}:${day}`,
      });
    } catch (error) {
      // Not queued: the delivery is forgotten and the platform sends it again, which must find
      // the chat not told yet.
      this.notAllowed.untake(platform.id, received.threadId, now);
      throw error;
    }
  }

  /** Fails closed: refused without a secret configured or stored, and when `passes` says no. */
  async #check(channel: ChatChannel, passes: (secret: string) => boolean): Promise<void> {
    const secret = channel.settings.webhookSecret ?? (await channel.credentials.webhookSecret());
    if (secret === undefined || secret === '' || !passes(secret)) throw new DomainError('unauthorized', 'Unauthorized');
  }
}
