import { expect } from 'chai';
import { SlackChannel } from '../../../src/adapters/messaging/slack/slack-channel.js';
import { slackSignature } from '../../../src/adapters/messaging/slack/slack-signature.js';
import { TelegramChannel } from '../../../src/adapters/messaging/telegram/telegram-channel.js';
import { TELEGRAM } from '../../../src/adapters/messaging/telegram/telegram.js';
import { type ChatChannel, MessagingChannels } from '../../../src/application/messaging/messaging-channels.js';
import { CHAT_MESSAGE_QUEUE, type ChatMessageTask, ReceiveMessagingUpdate } from '../../../src/application/messaging/receive-messaging-update.js';
import { FireTriggers } from '../../../src/application/triggers/fire-triggers.js';
import type { ChannelMessage } from '../../../src/domain/messaging/channel-message.js';
import { validateTriggers } from '../../../src/domain/triggers/validate-triggers.js';
import type { MessagingChannel } from '../../../src/ports/messaging-channel.js';
import { FixedClock } from '../../fakes/fixed-clock.js';
import { InMemoryAlbumStore } from '../../fakes/in-memory-album-store.js';
import { InMemoryBotTokenStore } from '../../fakes/in-memory-bot-token-store.js';
import { InMemoryDeliveryLog } from '../../fakes/in-memory-delivery-log.js';
import { InMemoryInboundRequestStore } from '../../fakes/in-memory-inbound-request-store.js';
import { InMemoryTaskQueue, InMemoryTaskStore } from '../../fakes/in-memory-task-queue.js';
import { InMemoryTriggerLanes } from '../../fakes/in-memory-trigger-lanes.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';
import { SequentialIds } from '../../fakes/sequential-ids.js';

const SECRET = 'webhook-secret';

/** What PostgreSQL `text` and `jsonb` refuse: a NUL, a lone surrogate (the embedded database fails the insert, a 500). */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * A platform's update whose ids (not its text) hold characters the database refuses, through the
 * real channel adapters' parsing and the use case, into the stores: every text that reaches the
 * queue (payload, group, key), the delivery log and the album store must be storable, so the
 * update is answered 200 and not a 500 on every retry of the platform.
 */
describe('ids from a platform’s payload reach no store with a NUL or a lone surrogate', () => {
  const clock = new FixedClock(new Date('2026-11-30T12:00:00Z'));
  const { triggers } = validateTriggers([], 'test', { watchPaths: [], llmProviders: [] });

  const setup = (platform: MessagingChannel, allowed: readonly string[]) => {
    const logger = new RecordingLogger();
    const tasks = new InMemoryTaskStore();
    const queue = new InMemoryTaskQueue(tasks);
    const deliveries = new InMemoryDeliveryLog();
    const albums = new InMemoryAlbumStore();
    const channel: ChatChannel = {
      platform,
      credentials: new InMemoryBotTokenStore('bot-token'),
      settings: {
        webhookSecret: SECRET,
        allowedChatIds: new Set(allowed),
        variables: { botToken: 'BOT_TOKEN', webhookSecret: 'WEBHOOK_SECRET', allowedChats: 'ALLOWED_CHATS' },
      },
    };
    const fire = new FireTriggers(triggers, new InMemoryInboundRequestStore(), queue, new SequentialIds(), clock, logger, new InMemoryTriggerLanes());
    const receive = new ReceiveMessagingUpdate(new MessagingChannels([channel]), deliveries, queue, fire, clock, logger, undefined, albums);
    const deliver = (body: unknown, headers: Record<string, string>) =>
      receive.execute({
        channel: platform.id,
        request: { headers, rawBody: new TextEncoder().encode(JSON.stringify(body)) },
        parseBody: () => body,
        triggers: { watchPath: `/messaging/${platform.id}/webhook`, request: { body, query: {}, headers: {} } },
      });
    /** Every text the fakes stored, as the database would get it. */
    const stored = async (): Promise<string[]> => {
      const albumTexts = await Promise.all(
        queue.tasks
          .map((task) => (task.payload as ChatMessageTask).message?.metadata.albumId)
          .filter((album): album is string => album !== undefined)
          .map(async (album) => JSON.stringify((await albums.read(`${platform.id}:${album}`)).items)),
      );
      return [...queue.tasks.flatMap((task) => [JSON.stringify(task.payload), task.group ?? '']), ...tasks.keys, ...deliveries.seen.keys(), ...albumTexts];
    };
    const messages = (): ChannelMessage[] => queue.tasks.filter((t) => t.queue === CHAT_MESSAGE_QUEUE).map((t) => (t.payload as ChatMessageTask).message);
    return { deliver, stored, messages, albums };
  };

  const expectStorable = (texts: readonly string[]) => {
    expect(texts.filter((text) => UNSTORABLE.test(text)).map((text) => JSON.stringify(text))).to.deep.equal([]);
  };

  describe('Telegram', () => {
    const telegram = () => new TelegramChannel({ apiUrl: 'http://127.0.0.1:9', attempts: 1, backoffMs: 0, maxRetryAfterMs: 0, timeoutMs: 1000 });
    const headers = { [TELEGRAM.credentialHeaders[0]]: SECRET };

    it('D1: a `media_group_id` holding U+0000 (or a lone surrogate) is stored with U+FFFD in its place, in the album and in the queue', async () => {
      const { deliver, stored, messages, albums } = setup(telegram(), ['42']);
      const update = (id: number, group: string) => ({
        update_id: id,
        message: { message_id: id, chat: { id: 42 }, from: { id: 1 }, text: 'x', media_group_id: group },
      });
      expect(await deliver(update(3, 'g\u0000'), headers)).to.deep.equal({ kind: 'ok' });
      expect(await deliver(update(4, 'h\uD800'), headers)).to.deep.equal({ kind: 'ok' });
      expectStorable(await stored());
      expect(messages().map((message) => message.metadata.albumId)).to.deep.equal(['42:g\uFFFD', '42:h\uFFFD']);
      expect((await albums.read('telegram:42:g\uFFFD')).items.map((message) => message.metadata.messageId)).to.deep.equal(['3']);
    });

    it('an allowed chat’s other ids stay as they are', async () => {
      const { deliver, messages } = setup(telegram(), ['42']);
      await deliver({ update_id: 5, message: { message_id: 7, chat: { id: 42 }, from: { id: 1 }, text: 'x', media_group_id: '1234567890' } }, headers);
      expect(messages().map((message) => [message.threadId, message.metadata.messageId, message.metadata.albumId])).to.deep.equal([
        ['42', '7', '42:1234567890'],
      ]);
    });
  });

  describe('Slack', () => {
    const slack = () => new SlackChannel({ apiUrl: 'http://127.0.0.1:9/api', attempts: 1, backoffMs: 0, maxRetryAfterMs: 0, timeoutMs: 1000 });
    const signed = (body: unknown) => {
      const timestamp = String(Math.floor(clock.now().getTime() / 1000));
      return { 'x-slack-request-timestamp': timestamp, 'x-slack-signature': slackSignature(SECRET, timestamp, JSON.stringify(body)) };
    };
    const event = (id: string, channel: string, user = 'U0123') => ({
      type: 'event_callback',
      event_id: id,
      event: { type: 'message', channel, user, text: 'hello', ts: '1764504000.000100' },
    });

    it('D2: an `event.channel` holding U+0000 from a chat not allowed: its notice is queued with U+FFFD in its place', async () => {
      const { deliver, stored, messages } = setup(slack(), ['C0123ABCDEF']);
      const body = event('Ev1', 'C\u0000');
      expect(await deliver(body, signed(body))).to.deep.equal({ kind: 'ok' });
      expectStorable(await stored());
      expect(messages().map((message) => message.threadId)).to.deep.equal(['C\uFFFD']);
    });

    it('D2: a channel holding a lone surrogate, and a user holding U+0000, in an allowed chat: stored storable', async () => {
      const { deliver, stored, messages } = setup(slack(), ['C0123ABCDEF', 'D\uFFFD']);
      const first = event('Ev2', 'D\uDC00');
      const second = { ...event('Ev3', 'C0123ABCDEF', 'U\u0000'), event: { ...event('Ev3', 'C0123ABCDEF', 'U\u0000').event, ts: '1764504000.000200' } };
      expect(await deliver(first, signed(first))).to.deep.equal({ kind: 'ok' });
      expect(await deliver(second, signed(second))).to.deep.equal({ kind: 'ok' });
      expectStorable(await stored());
      expect(messages().map((message) => [message.threadId, message.metadata.from])).to.deep.equal([
        ['D\uFFFD', 'U0123'],
        ['C0123ABCDEF', 'U\uFFFD'],
      ]);
    });
  });
});
