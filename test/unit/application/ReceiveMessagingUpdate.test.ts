import { expect } from 'chai';
import { CHAT_MESSAGE_QUEUE, ReceiveMessagingUpdate, type ChatMessageTask } from '../../../src/application/ReceiveMessagingUpdate.js';
import { FireTriggers } from '../../../src/application/FireTriggers.js';
import { NodeApiKeyCrypto } from '../../../src/adapters/crypto/NodeApiKeyCrypto.js';
import type { BotTokenStore } from '../../../src/ports/BotTokenStore.js';
import type { MessagingChannel } from '../../../src/ports/MessagingChannel.js';
import { InMemoryTaskQueue } from '../../fakes/InMemoryTaskQueue.js';
import { RecordingLogger } from '../../fakes/RecordingLogger.js';
import { InMemoryInboundRequestStore } from '../../fakes/InMemoryInboundRequestStore.js';

const SECRET = 'webhook-secret';
const channel = { id: 'telegram', title: 'Telegram' } as unknown as MessagingChannel;
const tokens = (token: string | undefined): BotTokenStore => ({ current: async () => token }) as unknown as BotTokenStore;

const update = (updateId: number, chatId = 42, text = 'hello') => ({
  update_id: updateId,
  message: { message_id: updateId * 10, date: 1_700_000_000, chat: { id: chatId, type: 'private' }, from: { id: chatId, is_bot: false, first_name: 'Ann' }, text },
});

describe('ReceiveMessagingUpdate', () => {
  const make = (token: string | undefined) => {
    const queue = new InMemoryTaskQueue();
    const logger = new RecordingLogger();
    const fire = new FireTriggers([], new InMemoryInboundRequestStore(), queue, { next: () => 'id' }, { now: () => new Date() }, logger);
    const receive = new ReceiveMessagingUpdate(channel, SECRET, new NodeApiKeyCrypto(), tokens(token), queue, fire, logger);
    const deliver = (body: unknown, ...secret: [string | undefined] | []) => receive.execute({ secret: secret.length === 0 ? SECRET : secret[0], update: body, watchPath: '/messaging/webhook', request: { body, query: {}, headers: {} } });
    return { queue, deliver };
  };

  it('refuses a wrong or missing secret before anything is stored', async () => {
    const { queue, deliver } = make('bot-token');
    for (const secret of ['wrong', undefined, '']) {
      const error = await deliver(update(1), secret).then(() => undefined, (e: unknown) => e);
      expect(error, String(secret)).to.have.property('code', 'unauthorized');
    }
    expect(queue.tasks).to.have.length(0);
  });

  it('stores a message as a task of its chat and answers ok', async () => {
    const { queue, deliver } = make('bot-token');
    expect(await deliver(update(7, 99, 'hi there'))).to.deep.equal({ ok: true });
    expect(queue.tasks).to.have.length(1);
    const task = queue.tasks[0];
    expect(task.queue).to.equal(CHAT_MESSAGE_QUEUE);
    expect(task.group).to.equal('telegram:99');
    expect((task.payload as ChatMessageTask).message).to.include({ threadId: '99', text: 'hi there' });
  });

  it('stores a repeated update_id once', async () => {
    const { queue, deliver } = make('bot-token');
    await deliver(update(7));
    await deliver(update(7));
    await deliver(update(8));
    expect(queue.tasks.map((t) => (t.payload as ChatMessageTask).message.metadata.updateId)).to.deep.equal([7, 8]);
  });

  it('stores nothing without a bot token, and nothing for an update without a message', async () => {
    const none = make(undefined);
    expect(await none.deliver(update(1))).to.deep.equal({ ok: true });
    expect(none.queue.tasks).to.have.length(0);
    const { queue, deliver } = make('bot-token');
    const fromBot = update(5);
    fromBot.message.from.is_bot = true;
    expect(await deliver(fromBot)).to.deep.equal({ ok: true });
    expect(queue.tasks).to.have.length(0);
  });

  it('answers with an error, and stores nothing, when the queue cannot store the task', async () => {
    const { queue, deliver } = make('bot-token');
    queue.failNext = true;
    const error = await deliver(update(3)).then(() => undefined, (e: unknown) => e);
    expect(error).to.be.instanceOf(Error);
    // the platform redelivers: the retry is stored
    await deliver(update(3));
    expect(queue.tasks).to.have.length(1);
  });
});
