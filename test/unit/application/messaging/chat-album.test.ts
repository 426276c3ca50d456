import { expect } from 'chai';
import { AI_PROVIDERS, AI_PROVIDER_NAMES } from '../../../../src/adapters/ai/ai-providers.js';
import { EnvironmentSecretStore } from '../../../../src/adapters/secrets/environment-secret-store.js';
import { CreateJob } from '../../../../src/application/jobs/create-job.js';
import { GetJobStatus } from '../../../../src/application/jobs/get-job-status.js';
import { ChatAgent } from '../../../../src/application/messaging/chat-agent.js';
import { MessagingChannels, type ChatChannel } from '../../../../src/application/messaging/messaging-channels.js';
import { CHAT_MESSAGE_QUEUE, ReceiveMessagingUpdate, type ChatMessageTask } from '../../../../src/application/messaging/receive-messaging-update.js';
import { MAX_ALBUM_WAIT_MS, ReplyToChatMessage } from '../../../../src/application/messaging/reply-to-chat-message.js';
import { FireTriggers } from '../../../../src/application/triggers/fire-triggers.js';
import type { ChannelMessage } from '../../../../src/domain/messaging/channel-message.js';
import type { DownloadedFile } from '../../../../src/ports/messaging-channel.js';
import { FakeMessagingChannel } from '../../../fakes/fake-messaging-channel.js';
import { FixedClock } from '../../../fakes/fixed-clock.js';
import { InMemoryAlbumStore } from '../../../fakes/in-memory-album-store.js';
import { InMemoryBotTokenStore } from '../../../fakes/in-memory-bot-token-store.js';
import { InMemoryConversationStore } from '../../../fakes/in-memory-conversation-store.js';
import { InMemoryDeliveryLog } from '../../../fakes/in-memory-delivery-log.js';
import { InMemoryInboundRequestStore } from '../../../fakes/in-memory-inbound-request-store.js';
import { InMemoryJobRepository } from '../../../fakes/in-memory-job-repository.js';
import { InMemoryTaskQueue } from '../../../fakes/in-memory-task-queue.js';
import { InMemoryTriggerLanes } from '../../../fakes/in-memory-trigger-lanes.js';
import { ManualTimer } from '../../../fakes/manual-timer.js';
import { RecordingLogger } from '../../../fakes/recording-logger.js';
import { ScriptedAiClient } from '../../../fakes/scripted-ai-client.js';
import { SequentialIds } from '../../../fakes/sequential-ids.js';
import { waitFor } from '../../../support/http.js';

const SETTLE_MS = 1500;

/** A fake platform whose files are their ids' bytes. */
class FilesChannel extends FakeMessagingChannel {
  readonly downloads: string[] = [];
  override async download(_token: string, fileId: string): Promise<DownloadedFile> {
    this.downloads.push(fileId);
    return { data: new TextEncoder().encode(fileId), path: `photos/${fileId}.jpg` };
  }
}

/** Item `n` (1-based) of album `group` in chat 42: a photo, with `caption` when given. */
const item = (n: number, caption = '', group = 'g1'): { deliveryId: string; message: ChannelMessage; messageKey: string } => ({
  deliveryId: String(500 + n),
  messageKey: `album:42:${group}`,
  message: {
    threadId: '42',
    text: caption,
    attachments: [{ kind: 'photo', fileId: `photo-${n}`, mimeType: 'image/jpeg' }],
    metadata: { userId: 'fake', chatTitle: 'Fake', updateId: String(500 + n), messageId: String(70 + n), edited: false, albumId: `42:${group}` },
  },
});

const lone = (text: string): { deliveryId: string; message: ChannelMessage } => ({
  deliveryId: '900',
  message: {
    threadId: '42',
    text,
    attachments: [{ kind: 'photo', fileId: 'photo-lone', mimeType: 'image/jpeg' }],
    metadata: { userId: 'fake', chatTitle: 'Fake', updateId: '900', messageId: '99', edited: false },
  },
});

describe('A chat album (messages sent together, delivered one by one) is answered once, with every message', () => {
  const setup = () => {
    const clock = new FixedClock();
    const timer = new ManualTimer();
    const queue = new InMemoryTaskQueue();
    const logger = new RecordingLogger();
    const albums = new InMemoryAlbumStore();
    const platform = new FilesChannel();
    const channel: ChatChannel = {
      platform,
      credentials: new InMemoryBotTokenStore('bot-token'),
      settings: {
        webhookSecret: 's',
        allowedChatIds: new Set(['42']),
        variables: { botToken: 'FAKE_TOKEN', webhookSecret: 'FAKE_SECRET', allowedChats: 'FAKE_ALLOWED_CHATS' },
      },
    };
    const channels = new MessagingChannels([channel]);
    const fire = new FireTriggers([], new InMemoryInboundRequestStore(), queue, new SequentialIds(), clock, logger, new InMemoryTriggerLanes());
    const receive = new ReceiveMessagingUpdate(channels, new InMemoryDeliveryLog(), queue, fire, clock, logger, undefined, albums);
    const ai = new ScriptedAiClient([]);
    const jobs = new InMemoryJobRepository();
    const createJob = new CreateJob(jobs, queue, new EnvironmentSecretStore({}, AI_PROVIDERS), new SequentialIds(), clock, logger, {
      llmProviders: AI_PROVIDER_NAMES,
      defaultProvider: undefined,
      defaultModel: undefined,
      unavailableReason: undefined,
    });
    const conversations = new InMemoryConversationStore();
    const agent = new ChatAgent(ai, conversations, createJob, new GetJobStatus(jobs), new SequentialIds(), {
      historyTurns: 10,
      maxSteps: 5,
      systemPrompt: async () => 'You are the bot.',
      llmProviders: AI_PROVIDER_NAMES,
    });
    const reply = new ReplyToChatMessage(channels, agent, logger, undefined, undefined, timer, { store: albums, clock, settleMs: SETTLE_MS });
    /** A delivery arriving now, then 100 ms passing. */
    const arrive = async (delivery: { deliveryId: string; message: ChannelMessage; messageKey?: string }) => {
      await receive.accept(channel, delivery);
      clock.advance(100);
    };
    const chatTasks = () => queue.tasks.filter((task) => task.queue === CHAT_MESSAGE_QUEUE).map((task) => task.payload as ChatMessageTask);
    /** Runs a chat task as the queue would, letting the settle time pass on the clock each time the reply waits for it. */
    const run = async (task: ChatMessageTask) => {
      let done = false;
      const running = reply.execute(task).finally(() => (done = true));
      for (;;) {
        await waitFor(() => done || timer.pending, 5000, 'the reply to finish or wait');
        if (!timer.pending) break;
        clock.advance(timer.waits.at(-1) ?? 0);
        timer.fire();
      }
      await running;
    };
    /** The model's input of its n-th request: the user's text and the images' bytes as text. */
    const modelInput = (n = 0) => {
      const current = ai.requests[n]?.messages.at(-1);
      return { text: current?.text ?? '', images: (current?.images ?? []).map((image) => new TextDecoder().decode(image.data)) };
    };
    return { clock, timer, receive, reply, arrive, chatTasks, run, modelInput, ai, albums, platform, conversations, channel };
  };

  const orders = [
    [1, 2, 3],
    [2, 1, 3],
    [3, 2, 1],
    [2, 3, 1],
    [1, 3, 2],
    [3, 1, 2],
  ];
  for (const order of orders) {
    it(`answers an album of 3 photos, the caption on the 2nd, arriving in the order ${order.join(', ')}: once, the model seeing the caption and the 3 photos`, async () => {
      const { arrive, chatTasks, run, modelInput, ai, platform } = setup();
      for (const n of order) await arrive(item(n, n === 2 ? 'Which of these is ripe?' : ''));
      expect(chatTasks(), 'one answer queued for the album').to.have.length(1);
      await run(chatTasks()[0]);
      expect(ai.requests).to.have.length(1);
      const input = modelInput();
      expect(input.text).to.contain('Which of these is ripe?');
      expect(input.images).to.deep.equal(['photo-1', 'photo-2', 'photo-3']);
      expect(platform.sent.map((sent) => sent.message.plain).join('')).to.equal('ok');
      // The acknowledgement and the reply go to the album's first message.
      expect(platform.acknowledged.map((ack) => ack.messageId)).to.deep.equal(['71']);
    });
  }

  it('waits for messages of the album that arrive while it waits, until none came for the settle time', async () => {
    const { arrive, chatTasks, reply, timer, clock, modelInput, ai } = setup();
    await arrive(item(1));
    const answered = reply.execute(chatTasks()[0]);
    await waitFor(() => timer.pending, 5000, 'the album to wait');
    expect(timer.waits.at(-1)).to.equal(SETTLE_MS - 100);
    expect(ai.requests, 'not answered before the settle time').to.have.length(0);
    // The others come while it waits (their tasks are not queued: the album's answer is).
    clock.advance(1000);
    await arrive(item(2, 'compare these'));
    await arrive(item(3));
    expect(chatTasks()).to.have.length(1);
    clock.advance(200);
    timer.fire();
    // The last one arrived 300 ms before the first wait ended: it waits again, the settle time from that message on.
    await waitFor(() => timer.pending, 5000, 'the album to wait again');
    expect(timer.waits.at(-1)).to.equal(SETTLE_MS - 300);
    expect(ai.requests).to.have.length(0);
    clock.advance(timer.waits.at(-1) ?? 0);
    timer.fire();
    await answered;
    expect(modelInput().text).to.contain('compare these');
    expect(modelInput().images).to.deep.equal(['photo-1', 'photo-2', 'photo-3']);
  });

  it('does not wait forever when messages of the album keep arriving', async () => {
    const { arrive, chatTasks, reply, timer, clock, ai } = setup();
    await arrive(item(1));
    const answered = reply.execute(chatTasks()[0]);
    let n = 2;
    while (ai.requests.length === 0) {
      await waitFor(() => timer.pending || ai.requests.length > 0, 5000, 'a wait or the answer');
      if (!timer.pending) break;
      clock.advance((timer.waits.at(-1) ?? 0) - 50);
      await arrive(item(n++));
      timer.fire();
    }
    await answered;
    expect(ai.requests).to.have.length(1);
    expect(timer.waits.reduce((sum, wait) => sum + wait, 0)).to.be.at.most(MAX_ALBUM_WAIT_MS);
  });

  it('answers a message of the album arriving after the answer started never again', async () => {
    const { arrive, chatTasks, run, ai, albums } = setup();
    await arrive(item(1, 'what are these?'));
    await arrive(item(2));
    await run(chatTasks()[0]);
    await arrive(item(3));
    expect(chatTasks(), 'no second answer queued').to.have.length(1);
    expect((await albums.read('fake:42:g1')).items, 'the late message is kept like the others').to.have.length(3);
    expect(ai.requests).to.have.length(1);
  });

  it('answers nothing twice for a redelivered message of an album: stored once, one answer, each file once', async () => {
    const { arrive, chatTasks, run, modelInput, ai, albums } = setup();
    await arrive(item(1));
    await arrive(item(2, 'caption'));
    await arrive(item(2, 'caption'));
    await arrive(item(1));
    await arrive(item(3));
    expect(chatTasks()).to.have.length(1);
    expect((await albums.read('fake:42:g1')).items).to.have.length(3);
    await run(chatTasks()[0]);
    expect(ai.requests).to.have.length(1);
    expect(modelInput().images).to.deep.equal(['photo-1', 'photo-2', 'photo-3']);
    expect(modelInput().text.match(/caption/g)).to.have.length(1);
  });

  it('keeps two albums of one chat apart', async () => {
    const { arrive, chatTasks, run, modelInput } = setup();
    await arrive(item(1, 'first album', 'g1'));
    await arrive(item(2, '', 'g1'));
    await arrive(item(3, 'second album', 'g2'));
    expect(chatTasks()).to.have.length(2);
    await run(chatTasks()[0]);
    await run(chatTasks()[1]);
    expect(modelInput(0)).to.deep.equal({ text: modelInput(0).text, images: ['photo-1', 'photo-2'] });
    expect(modelInput(0).text).to.contain('first album').and.not.contain('second album');
    expect(modelInput(1).images).to.deep.equal(['photo-3']);
  });

  it('answers a message in no album at once, as before: no wait, nothing stored as an album', async () => {
    const { arrive, chatTasks, reply, timer, modelInput, albums, conversations } = setup();
    await arrive(lone('what is this?'));
    expect(albums.adds).to.equal(0);
    await reply.execute(chatTasks()[0]);
    expect(timer.waits).to.deep.equal([]);
    expect(modelInput().images).to.deep.equal(['photo-lone']);
    expect((await conversations.recent('fake:42', 10)).map((turn) => turn.text)).to.deep.equal(['what is this?', 'ok']);
  });

  it('refuses an album from a chat that is not allowed at once: no wait for its messages, no model call', async () => {
    const { arrive, chatTasks, reply, timer, ai, platform, channel } = setup();
    (channel.settings.allowedChatIds as Set<string>).delete('42');
    await arrive(item(1, 'hello'));
    await reply.execute(chatTasks()[0]);
    expect(timer.waits).to.deep.equal([]);
    expect(ai.requests).to.have.length(0);
    expect(platform.sent.map((sent) => sent.message.plain)).to.deep.equal([
      'This chat is not allowed to use this bot. Its id is 42: add it to FAKE_ALLOWED_CHATS to allow it.',
    ]);
  });

  it('answers an album task queued before the upgrade (its message names no album) from its own message, without waiting', async () => {
    const { run, modelInput, timer } = setup();
    const { albumId: _none, ...metadata } = item(2, 'old caption').message.metadata;
    await run({ message: { ...item(2, 'old caption').message, metadata } });
    expect(timer.waits).to.deep.equal([]);
    expect(modelInput().text).to.contain('old caption');
    expect(modelInput().images).to.deep.equal(['photo-2']);
  });

  it("answers an album whose messages are not stored (forgotten) from its task's message", async () => {
    const { run, modelInput } = setup();
    await run({ message: item(3, 'alone now').message });
    expect(modelInput().text).to.contain('alone now');
    expect(modelInput().images).to.deep.equal(['photo-3']);
  });
});
