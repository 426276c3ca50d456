import { expect } from 'chai';
import { AI_PROVIDERS, AI_PROVIDER_NAMES } from '../../../../src/adapters/ai/ai-providers.js';
import { EnvironmentSecretStore } from '../../../../src/adapters/secrets/environment-secret-store.js';
import { CreateJob } from '../../../../src/application/jobs/create-job.js';
import { GetJobStatus } from '../../../../src/application/jobs/get-job-status.js';
import { ChatAgent } from '../../../../src/application/messaging/chat-agent.js';
import { MessagingChannels, type ChatChannel } from '../../../../src/application/messaging/messaging-channels.js';
import { CHAT_MESSAGE_QUEUE, ReceiveMessagingUpdate, type ChatMessageTask } from '../../../../src/application/messaging/receive-messaging-update.js';
import {
  MAX_ALBUM_WAIT_MS,
  MAX_IMAGE_BYTES_PER_ANSWER,
  MAX_TEXT_BYTES_PER_ANSWER,
  ReplyToChatMessage,
} from '../../../../src/application/messaging/reply-to-chat-message.js';
import { FireTriggers } from '../../../../src/application/triggers/fire-triggers.js';
import { DomainError } from '../../../../src/domain/errors/domain-error.js';
import type { Attachment, ChannelMessage } from '../../../../src/domain/messaging/channel-message.js';
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

/**
 * A fake platform whose files are their ids' bytes, or for a file in `sizes` that many bytes. Like
 * Telegram's, it refuses a file larger than the limit it is given before downloading it.
 */
class FilesChannel extends FakeMessagingChannel {
  readonly downloads: string[] = [];
  readonly sizes = new Map<string, number>();
  /** The bytes handed out, all downloads together. */
  downloadedBytes = 0;
  override async download(_token: string, fileId: string, maxBytes = Number.POSITIVE_INFINITY): Promise<DownloadedFile> {
    const size = this.sizes.get(fileId);
    if (size !== undefined && size > maxBytes) throw new DomainError('payload_too_large', `The file is ${size} bytes, over the limit of ${maxBytes}`);
    this.downloads.push(fileId);
    const data = size === undefined ? new TextEncoder().encode(fileId) : new Uint8Array(size);
    this.downloadedBytes += data.byteLength;
    return { data, path: `photos/${fileId}.jpg` };
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

/** Item `n` of album g1 in chat 42 with `attachment` instead of a photo. */
const itemWith = (n: number, attachment: Attachment, caption = ''): { deliveryId: string; message: ChannelMessage; messageKey: string } => {
  const base = item(n, caption);
  return { ...base, message: { ...base.message, attachments: [attachment] } };
};

const MB = 1024 * 1024;

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
    // A limit real channels have, so that a reply is one message (a split drops the whitespace where it cuts).
    const platform = new FilesChannel({ maxMessageLength: 1000 });
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
      // Acknowledged once, on the message that queued the answer (the first to arrive: acknowledged before the others came).
      expect(platform.acknowledged.map((ack) => ack.messageId)).to.deep.equal([String(70 + order[0])]);
    });
  }

  it('acknowledges an album at once, before its wait for the other messages ends, and once for the whole album', async () => {
    const { arrive, chatTasks, reply, timer, clock, ai, platform } = setup();
    await arrive(item(1, 'which is ripe?'));
    const answered = reply.execute(chatTasks()[0]);
    await waitFor(() => timer.pending, 5000, 'the album to wait');
    // The settle wait has not ended (its timer not fired): the user already sees the 👀.
    expect(platform.acknowledged).to.deep.equal([{ target: { chatId: '42' }, messageId: '71' }]);
    expect(ai.requests, 'not answered yet').to.have.length(0);
    await arrive(item(2));
    await arrive(item(3));
    expect(chatTasks(), 'one answer queued for the album').to.have.length(1);
    clock.advance(SETTLE_MS);
    timer.fire();
    await answered;
    expect(ai.requests).to.have.length(1);
    expect(platform.sent.map((sent) => sent.message.plain).join('')).to.equal('ok');
    expect(
      platform.acknowledged.map((ack) => ack.messageId),
      'one acknowledgement for the 3 messages',
    ).to.deep.equal(['71']);
  });

  it('answers an album whose acknowledgement the platform refused, as a single message', async () => {
    const { arrive, chatTasks, run, ai, platform } = setup();
    platform.acknowledge = async () => {
      throw new Error('reactions are off in this chat');
    };
    await arrive(item(1, 'which is ripe?'));
    await arrive(item(2));
    await run(chatTasks()[0]);
    expect(ai.requests).to.have.length(1);
    expect(platform.sent.map((sent) => sent.message.plain).join('')).to.equal('ok');
  });

  it('acknowledges each of two albums of one chat once', async () => {
    const { arrive, chatTasks, run, platform } = setup();
    for (const n of [1, 2, 3]) await arrive(item(n, '', 'g1'));
    for (const n of [4, 5]) await arrive(item(n, '', 'g2'));
    expect(chatTasks()).to.have.length(2);
    for (const task of chatTasks()) await run(task);
    expect(platform.acknowledged.map((ack) => ack.messageId)).to.deep.equal(['71', '74']);
  });

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

  for (const told of [true, false]) {
    it(`sends the model at most ${MAX_IMAGE_BYTES_PER_ANSWER / MB} MB of an album of 10 images of 9 MB (size ${told ? 'told' : 'not told'} by the platform), names the others as not read, downloads nothing past the total`, async () => {
      const { arrive, chatTasks, run, ai, platform } = setup();
      for (let n = 1; n <= 10; n++) {
        const fileId = `image-${n}`;
        platform.sizes.set(fileId, 9 * MB);
        await arrive(
          itemWith(
            n,
            { kind: 'document', fileId, fileName: `scan-${n}.png`, mimeType: 'image/png', ...(told && { size: 9 * MB }) },
            n === 1 ? 'read these' : '',
          ),
        );
      }
      await run(chatTasks()[0]);
      expect(ai.requests).to.have.length(1);
      const input = ai.requests[0].messages.at(-1);
      const sentBytes = (input?.images ?? []).reduce((sum, image) => sum + image.data.byteLength, 0);
      expect(sentBytes).to.be.at.most(MAX_IMAGE_BYTES_PER_ANSWER);
      expect(input?.images).to.have.length(2);
      expect(platform.downloads).to.deep.equal(['image-1', 'image-2']);
      expect(platform.downloadedBytes).to.be.at.most(MAX_IMAGE_BYTES_PER_ANSWER);
      const notRead = [3, 4, 5, 6, 7, 8, 9, 10].map((n) => `a file "scan-${n}.png"`);
      for (const label of notRead) expect(input?.text).to.contain(`[The user attached ${label}, which you cannot read.]`);
      expect(input?.text).to.contain('read these');
      expect(platform.sent.map((sent) => sent.message.plain).join('')).to.equal(`(I could not read ${notRead.join(', ')}.)\n\nok`);
    });
  }

  it(`inlines at most ${MAX_TEXT_BYTES_PER_ANSWER / 1024} KB of an album of 10 text files of 512 KB, naming the others as not read`, async () => {
    const { arrive, chatTasks, run, ai, platform } = setup();
    for (let n = 1; n <= 10; n++) {
      platform.sizes.set(`text-${n}`, 512 * 1024);
      await arrive(itemWith(n, { kind: 'document', fileId: `text-${n}`, fileName: `log-${n}.txt`, mimeType: 'text/plain', size: 512 * 1024 }));
    }
    await run(chatTasks()[0]);
    const text = ai.requests[0].messages.at(-1)?.text ?? '';
    expect(platform.downloads).to.deep.equal(['text-1', 'text-2']);
    expect(text).to.contain('Attached file log-1.txt').and.contain('Attached file log-2.txt').and.not.contain('Attached file log-3.txt');
    expect(text.length).to.be.below(MAX_TEXT_BYTES_PER_ANSWER + 2000);
    for (let n = 3; n <= 10; n++) expect(text).to.contain(`[The user attached a file "log-${n}.txt", which you cannot read.]`);
  });

  it('reads a lone image of 9 MB as before', async () => {
    const { arrive, chatTasks, reply, ai, platform } = setup();
    platform.sizes.set('big', 9 * MB);
    const message = lone('what is this?');
    await arrive({
      ...message,
      message: { ...message.message, attachments: [{ kind: 'document', fileId: 'big', fileName: 'big.png', mimeType: 'image/png', size: 9 * MB }] },
    });
    await reply.execute(chatTasks()[0]);
    expect(ai.requests[0].messages.at(-1)?.images?.map((image) => image.data.byteLength)).to.deep.equal([9 * MB]);
    expect(platform.sent.map((sent) => sent.message.plain).join('')).to.equal('ok');
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

  it('refuses an album from a chat that is not allowed at once: no wait for its messages, no model call, no acknowledgement', async () => {
    const { arrive, chatTasks, reply, timer, ai, platform, channel } = setup();
    (channel.settings.allowedChatIds as Set<string>).delete('42');
    for (const n of [1, 2, 3]) await arrive(item(n, n === 1 ? 'hello' : ''));
    expect(chatTasks()).to.have.length(1);
    await reply.execute(chatTasks()[0]);
    expect(timer.waits).to.deep.equal([]);
    expect(ai.requests).to.have.length(0);
    expect(platform.sent.map((sent) => sent.message.plain)).to.deep.equal([
      'This chat is not allowed to use this bot. Its id is 42: add it to FAKE_ALLOWED_CHATS to allow it.',
    ]);
    expect(platform.acknowledged, 'no 👀 for a refused album').to.deep.equal([]);
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
