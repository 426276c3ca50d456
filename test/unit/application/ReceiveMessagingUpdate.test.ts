import { expect } from 'chai';
import { CHAT_MESSAGE_QUEUE, ReceiveMessagingUpdate, type ChatMessageTask } from '../../../src/application/ReceiveMessagingUpdate.js';
import { FireTriggers, TRIGGER_RUN_QUEUE } from '../../../src/application/FireTriggers.js';
import { NodeApiKeyCrypto } from '../../../src/adapters/crypto/NodeApiKeyCrypto.js';
import { validateTriggers } from '../../../src/domain/triggers/validateTriggers.js';
import type { MessagingChannel } from '../../../src/ports/MessagingChannel.js';
import { InMemoryBotTokenStore } from '../../fakes/InMemoryBotTokenStore.js';
import { InMemoryDeliveryLog } from '../../fakes/InMemoryDeliveryLog.js';
import { FixedClock } from '../../fakes/FixedClock.js';
import { InMemoryTaskQueue } from '../../fakes/InMemoryTaskQueue.js';
import { RecordingLogger } from '../../fakes/RecordingLogger.js';
import { InMemoryInboundRequestStore } from '../../fakes/InMemoryInboundRequestStore.js';
import { SequentialIds } from '../../fakes/SequentialIds.js';

const SECRET = 'webhook-secret';
const channel = { id: 'telegram', title: 'Telegram' } as unknown as MessagingChannel;

const update = (updateId: number, chatId = 42, text = 'hello') => ({
  update_id: updateId,
  message: { message_id: updateId * 10, date: 1_700_000_000, chat: { id: chatId, type: 'private' }, from: { id: chatId, is_bot: false, first_name: 'Ann' }, text },
});

const { triggers } = validateTriggers([{ name: 'on-chat', watch_path: '/messaging/webhook', enabled: true, actions: [{ type: 'command', command: 'true' }] }], 'test');

const failure = (promise: Promise<unknown>): Promise<unknown> => promise.then(() => undefined, (e: unknown) => e);

describe('ReceiveMessagingUpdate', () => {
  const make = (options: { token?: string; configured?: string; stored?: string } = {}) => {
    const queue = new InMemoryTaskQueue();
    const logger = new RecordingLogger();
    const deliveries = new InMemoryDeliveryLog();
    const tokens = new InMemoryBotTokenStore('token' in options ? options.token : 'bot-token', options.stored);
    const fire = new FireTriggers(triggers, new InMemoryInboundRequestStore(), queue, new SequentialIds(), new FixedClock(), logger);
    const configured = 'configured' in options ? options.configured : SECRET;
    const receive = new ReceiveMessagingUpdate(channel, configured, new NodeApiKeyCrypto(), tokens, deliveries, queue, fire, logger);
    const deliver = (body: unknown, ...secret: [string | undefined] | []) =>
      receive.execute({ secret: secret.length === 0 ? SECRET : secret[0], update: body, watchPath: '/messaging/webhook', request: { body, query: {}, headers: {} } });
    const chatTasks = () => queue.tasks.filter((t) => t.queue === CHAT_MESSAGE_QUEUE).map((t) => (t.payload as ChatMessageTask).message);
    const triggerRuns = () => queue.tasks.filter((t) => t.queue === TRIGGER_RUN_QUEUE);
    return { queue, deliveries, tokens, logger, receive, deliver, chatTasks, triggerRuns };
  };

  it('refuses a wrong or missing secret before anything is stored or fired', async () => {
    const { queue, deliver } = make();
    for (const secret of ['wrong', undefined, '', SECRET.toUpperCase(), `${SECRET}x`]) {
      expect(await failure(deliver(update(1), secret)), String(secret)).to.have.property('code', 'unauthorized');
    }
    expect(queue.tasks).to.have.length(0);
  });

  it('refuses every update, with any header, when no secret is configured nor stored (a token stored by an earlier registration)', async () => {
    const { queue, deliveries, deliver, receive } = make({ configured: undefined, stored: undefined });
    for (const secret of [undefined, '', 'anything']) {
      expect(await failure(deliver(update(1), secret)), String(secret)).to.have.property('code', 'unauthorized');
      expect(await failure(receive.authorize(secret)), String(secret)).to.have.property('code', 'unauthorized');
    }
    expect(queue.tasks).to.deep.equal([]);
    expect(deliveries.seen.size).to.equal(0);
  });

  it('checks the secret a registration stored when none is configured', async () => {
    const { deliver, receive, chatTasks } = make({ configured: undefined, stored: 'generated-secret' });
    expect(await failure(deliver(update(1), SECRET))).to.have.property('code', 'unauthorized');
    await receive.authorize('generated-secret');
    expect(await deliver(update(2), 'generated-secret')).to.deep.equal({ ok: true });
    expect(chatTasks().map((m) => m.metadata.updateId)).to.deep.equal([2]);
  });

  it('prefers the configured secret over a stored one', async () => {
    const { deliver } = make({ stored: 'generated-secret' });
    expect(await failure(deliver(update(1), 'generated-secret'))).to.have.property('code', 'unauthorized');
    expect(await deliver(update(2))).to.deep.equal({ ok: true });
  });

  it('stores a message as a task of its chat, fires the watching triggers, and answers ok', async () => {
    const { deliver, chatTasks, triggerRuns, queue } = make();
    expect(await deliver(update(7, 99, 'hi there'))).to.deep.equal({ ok: true });
    expect(chatTasks()).to.have.length(1);
    expect(chatTasks()[0]).to.include({ threadId: '99', text: 'hi there' });
    expect(queue.tasks.find((t) => t.queue === CHAT_MESSAGE_QUEUE)?.group).to.equal('telegram:99');
    expect(triggerRuns()).to.have.length(1);
  });

  it('runs a repeated update_id once: one chat task and one firing of the triggers, also for updates that carry no message', async () => {
    const { deliver, chatTasks, triggerRuns, logger } = make();
    await deliver(update(7));
    await deliver(update(7));
    await Promise.all([deliver(update(8)), deliver(update(8)), deliver(update(8))]);
    const membership = { update_id: 9, my_chat_member: { chat: { id: 1 } } };
    await deliver(membership);
    await deliver(membership);
    expect(chatTasks().map((m) => m.metadata.updateId)).to.deep.equal([7, 8]);
    expect(triggerRuns()).to.have.length(3);
    expect(logger.entries.filter((e) => e.message.startsWith('repeated update'))).to.have.length(4);
  });

  it('refuses an update without a usable update_id with 400, running nothing', async () => {
    const { deliver, queue } = make();
    for (const body of [{}, { update_id: 'x' }, { update_id: -1 }, { update_id: 1.5 }, [], 'text', null, undefined]) {
      const error = await failure(deliver(body));
      expect(error, JSON.stringify(body)).to.have.property('code', 'invalid_input');
      expect((error as Error).message).to.equal('Missing update_id');
    }
    expect(queue.tasks).to.deep.equal([]);
  });

  it('stores text holding a NUL or lone surrogates with each replaced by U+FFFD, so the message is still answered', async () => {
    const { deliver, chatTasks, triggerRuns } = make();
    await deliver(update(11, 5, 'a\u0000b \uD83D c \uDE00 d 🎉'));
    expect(chatTasks().map((m) => m.text)).to.deep.equal(['a\uFFFDb \uFFFD c \uFFFD d 🎉']);
    expect(triggerRuns()).to.have.length(1);
  });

  it('stores nothing without a bot token, and nothing for an update without a message', async () => {
    const none = make({ token: undefined });
    expect(await none.deliver(update(1))).to.deep.equal({ ok: true });
    expect(none.queue.tasks).to.have.length(0);
    const { deliver, chatTasks } = make();
    const fromBot = update(5);
    fromBot.message.from.is_bot = true;
    expect(await deliver(fromBot)).to.deep.equal({ ok: true });
    expect(chatTasks()).to.have.length(0);
  });

  it('forgets the update when its work cannot be stored, so the platform\'s retry is run (once)', async () => {
    const { queue, deliver, chatTasks, triggerRuns, deliveries } = make();
    queue.failNext = true;
    expect(await failure(deliver(update(3)))).to.be.instanceOf(Error);
    expect(deliveries.seen.size).to.equal(0);
    await deliver(update(3));
    await deliver(update(3));
    expect(chatTasks()).to.have.length(1);
    expect(triggerRuns()).to.have.length(1);
  });

  describe('#warnIfRefusingEverything (start-up)', () => {
    it('warns when a token is in force but no secret is configured nor stored', async () => {
      const { receive, logger } = make({ configured: undefined, stored: undefined });
      expect(await receive.warnIfRefusingEverything()).to.equal(true);
      const [warning] = logger.entries.filter((e) => e.level === 'warn');
      expect(warning.message).to.include('MESSAGING_WEBHOOK_SECRET');
      expect(warning.message).to.include('/api/messaging/register');
    });

    it('stays quiet with a configured or stored secret, or without a token', async () => {
      for (const options of [{}, { configured: undefined, stored: 's' }, { configured: undefined, token: undefined }]) {
        const { receive, logger } = make(options);
        expect(await receive.warnIfRefusingEverything(), JSON.stringify(options)).to.equal(false);
        expect(logger.entries).to.deep.equal([]);
      }
    });
  });
});
