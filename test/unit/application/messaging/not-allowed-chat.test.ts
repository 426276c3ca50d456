import { expect } from 'chai';
import type { ChatAgent } from '../../../../src/application/messaging/chat-agent.js';
import { MessagingChannels, type ChatChannel } from '../../../../src/application/messaging/messaging-channels.js';
import { NOT_ALLOWED_NOTICE_PERIOD_MS, NotAllowedNotices } from '../../../../src/application/messaging/not-allowed-notices.js';
import { CHAT_MESSAGE_QUEUE, ReceiveMessagingUpdate, type ChatMessageTask } from '../../../../src/application/messaging/receive-messaging-update.js';
import { ReplyToChatMessage } from '../../../../src/application/messaging/reply-to-chat-message.js';
import { FireTriggers, TRIGGER_RUN_QUEUE } from '../../../../src/application/triggers/fire-triggers.js';
import { validateTriggers } from '../../../../src/domain/triggers/validate-triggers.js';
import { FakeMessagingChannel, type FakeDelivery } from '../../../fakes/fake-messaging-channel.js';
import { FixedClock } from '../../../fakes/fixed-clock.js';
import { InMemoryBotTokenStore } from '../../../fakes/in-memory-bot-token-store.js';
import { InMemoryDeliveryLog } from '../../../fakes/in-memory-delivery-log.js';
import { InMemoryInboundRequestStore } from '../../../fakes/in-memory-inbound-request-store.js';
import { InMemoryTaskQueue } from '../../../fakes/in-memory-task-queue.js';
import { InMemoryTriggerLanes } from '../../../fakes/in-memory-trigger-lanes.js';
import { RecordingLogger } from '../../../fakes/recording-logger.js';
import { SequentialIds } from '../../../fakes/sequential-ids.js';

const SECRET = 'webhook-secret';
const ALLOWED = '42';
const STRANGER = '-100777';
const NOTICE = `This chat is not allowed to use this bot. Its id is ${STRANGER}: add it to FAKE_CHATS to allow it.`;

const { triggers } = validateTriggers(
  [{ name: 'on-chat', watch_path: '/messaging/fake/webhook', enabled: true, actions: [{ type: 'command', command: 'true' }] }],
  'test',
  { watchPaths: ['/messaging/fake/webhook'], llmProviders: [] },
);

describe('A chat that is not allowed: told once a day, never queued for the model', () => {
  const setup = () => {
    const clock = new FixedClock();
    const queue = new InMemoryTaskQueue();
    const logger = new RecordingLogger();
    // A rate limit is tried again by the channel, as by the real ones (up to 4 attempts).
    const platform = new FakeMessagingChannel({ attempts: 4, sleep: async () => undefined, maxMessageLength: 4096 });
    const channel: ChatChannel = {
      platform,
      credentials: new InMemoryBotTokenStore('bot-token'),
      settings: {
        webhookSecret: SECRET,
        allowedChatIds: new Set([ALLOWED]),
        variables: { botToken: 'FAKE_BOT_TOKEN', webhookSecret: 'FAKE_WEBHOOK_SECRET', allowedChats: 'FAKE_CHATS' },
      },
    };
    const channels = new MessagingChannels([channel]);
    const fire = new FireTriggers(triggers, new InMemoryInboundRequestStore(), queue, new SequentialIds(), clock, logger, new InMemoryTriggerLanes());
    const receive = new ReceiveMessagingUpdate(channels, new InMemoryDeliveryLog(), queue, fire, clock, logger);
    const asked: string[] = [];
    const agent = {
      execute: async (input: { text: string }) => {
        asked.push(input.text);
        return 'ok';
      },
    } as unknown as ChatAgent;
    const reply = new ReplyToChatMessage(channels, agent, logger);
    let updates = 0;
    const deliver = async (chat: string, text: string) => {
      const body: FakeDelivery = { id: String(++updates), message: { chat, id: `m${updates}`, text } };
      await receive.execute({
        channel: platform.id,
        request: { headers: { 'x-fake-secret': SECRET }, rawBody: new Uint8Array() },
        parseBody: () => body,
        triggers: { watchPath: '/messaging/fake/webhook', request: { body, query: {}, headers: {} } },
      });
      await fire.dispatched();
    };
    const chatTasks = () => queue.tasks.filter((t) => t.queue === CHAT_MESSAGE_QUEUE).map((t) => t.payload as ChatMessageTask);
    /** Runs the chat tasks queued, each once, as the workers would. */
    let ran = 0;
    const work = async () => {
      for (const task of chatTasks().slice(ran)) {
        ran++;
        await reply.execute(task);
      }
    };
    const sendsTo = (chat: string) => platform.requests.filter((r) => r.operation === 'send' && r.target?.chatId === chat);
    return { clock, queue, platform, deliver, chatTasks, work, asked, sendsTo, logger, channel };
  };

  it('answers a flood of 50 messages with one notice, sent in one attempt; its text never stored; the triggers still fire for each', async () => {
    const { deliver, chatTasks, work, platform, asked, sendsTo, queue } = setup();
    for (let n = 1; n <= 50; n++) await deliver(STRANGER, `spam ${n} [click](https://evil.example)`);
    expect(chatTasks(), 'one task for the whole flood').to.have.length(1);
    expect(chatTasks()[0].message.text, "the stranger's text is not stored").to.equal('');
    expect(
      queue.tasks.filter((t) => t.queue === TRIGGER_RUN_QUEUE),
      'triggers fire as before',
    ).to.have.length(50);
    await work();
    expect(asked, 'the model is never asked').to.deep.equal([]);
    expect(platform.sent.map((s) => s.message.plain)).to.deep.equal([NOTICE]);
    expect(sendsTo(STRANGER)).to.have.length(1);
  });

  it('gives the notice up after one attempt when the platform rate-limits it: no retry, no wait, the task does not fail', async () => {
    const { deliver, work, platform, sendsTo, logger } = setup();
    platform.failNext('send', 'rate-limit', 3);
    for (let n = 1; n <= 50; n++) await deliver(STRANGER, `spam ${n}`);
    await work();
    expect(sendsTo(STRANGER), 'one attempt').to.have.length(1);
    expect(platform.sent).to.deep.equal([]);
    expect(logger.entries.some((e) => e.message === 'could not tell a chat that is not allowed so; given up')).to.equal(true);
  });

  it("a notice that could not be queued (the queue down) leaves the chat untold: the platform's retry of the update queues it", async () => {
    const { deliver, chatTasks, queue } = setup();
    queue.failNext = true;
    const failed = await deliver(STRANGER, 'one').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failed, 'the delivery fails, so the platform sends it again').to.be.an('error');
    expect(chatTasks()).to.have.length(0);
    await deliver(STRANGER, 'one, again');
    expect(chatTasks(), 'the retry queues the notice').to.have.length(1);
  });

  it('a notice whose chat was allowed before its task ran asks the model nothing and sends nothing', async () => {
    const { deliver, chatTasks, platform, asked, channel, work } = setup();
    await deliver(STRANGER, 'one');
    expect(chatTasks()).to.have.length(1);
    (channel.settings.allowedChatIds as Set<string>).add(STRANGER);
    await work();
    expect(asked).to.deep.equal([]);
    expect(platform.sent).to.deep.equal([]);
  });

  it('tells the chat again after a day, not before', async () => {
    const { deliver, chatTasks, clock } = setup();
    await deliver(STRANGER, 'one');
    clock.advance(NOT_ALLOWED_NOTICE_PERIOD_MS - 1);
    await deliver(STRANGER, 'two');
    expect(chatTasks()).to.have.length(1);
    clock.advance(1);
    await deliver(STRANGER, 'three');
    expect(chatTasks()).to.have.length(2);
  });

  it('leaves allowed chats as they were: every message queued and answered, alongside a flood from a stranger', async () => {
    const { deliver, work, platform, asked, sendsTo } = setup();
    for (let n = 1; n <= 50; n++) {
      await deliver(STRANGER, `spam ${n}`);
      if (n % 10 === 0) await deliver(ALLOWED, `question ${n / 10}`);
    }
    await work();
    expect(asked).to.deep.equal(['question 1', 'question 2', 'question 3', 'question 4', 'question 5']);
    expect(platform.sent.filter((s) => s.target.chatId === ALLOWED).map((s) => s.message.plain)).to.deep.equal(['ok', 'ok', 'ok', 'ok', 'ok']);
    expect(sendsTo(STRANGER)).to.have.length(1);
  });

  it('remembers a bounded number of chats, forgetting the ones told longest ago first', () => {
    const notices = new NotAllowedNotices(1000, 2);
    const now = new Date(0);
    expect(['a', 'b', 'a', 'b'].map((chat) => notices.take('fake', chat, now))).to.deep.equal([true, true, false, false]);
    expect(notices.take('fake', 'c', now), 'a third chat').to.equal(true);
    expect(notices.take('fake', 'a', now), 'the oldest, forgotten').to.equal(true);
    expect(notices.take('fake', 'c', now)).to.equal(false);
    expect(notices.take('other', 'c', now), 'another channel').to.equal(true);
  });
});
