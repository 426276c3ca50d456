import { DomainError } from '../../../../src/domain/errors/domain-error.js';
import { expect } from 'chai';
import { CHAT_MESSAGE_QUEUE, ReceiveMessagingUpdate, type ChatMessageTask } from '../../../../src/application/messaging/receive-messaging-update.js';
import { FireTriggers, TRIGGER_RUN_QUEUE, type TriggerRunTask } from '../../../../src/application/triggers/fire-triggers.js';
import { MessagingChannels, type ChatChannel } from '../../../../src/application/messaging/messaging-channels.js';
import { validateTriggers } from '../../../../src/domain/triggers/validate-triggers.js';
import { FakeMessagingChannel, fakeSignature, type FakeChannelOptions, type FakeDelivery } from '../../../fakes/fake-messaging-channel.js';
import { FixedClock } from '../../../fakes/fixed-clock.js';
import { InMemoryBotTokenStore } from '../../../fakes/in-memory-bot-token-store.js';
import { InMemoryDeliveryLog } from '../../../fakes/in-memory-delivery-log.js';
import { InMemoryInboundRequestStore } from '../../../fakes/in-memory-inbound-request-store.js';
import { InMemoryTaskQueue } from '../../../fakes/in-memory-task-queue.js';
import { RecordingLogger } from '../../../fakes/recording-logger.js';
import { SequentialIds } from '../../../fakes/sequential-ids.js';
import { InMemoryTriggerLanes } from '../../../fakes/in-memory-trigger-lanes.js';

const SECRET = 'webhook-secret';

const update = (id: number | string, chat = '42', text = 'hello'): FakeDelivery => ({ id: String(id), message: { chat, id: `${id}0`, text } });

const catalog = { watchPaths: ['/messaging/fake/webhook', '/messaging/webhook', '/messaging/signed/webhook'], llmProviders: [] };
const { triggers } = validateTriggers(
  [
    { name: 'on-chat', watch_path: '/messaging/fake/webhook', enabled: true, actions: [{ type: 'command', command: 'true' }] },
    { name: 'on-alias', watch_path: '/messaging/webhook', enabled: true, actions: [{ type: 'command', command: 'true' }] },
  ],
  'test',
  catalog,
);

const failure = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (e: unknown) => e,
  );

describe('ReceiveMessagingUpdate', () => {
  const clock = new FixedClock();
  const make = (options: { token?: string; configured?: string; stored?: string; channel?: FakeChannelOptions } = {}) => {
    const queue = new InMemoryTaskQueue();
    const logger = new RecordingLogger();
    const deliveries = new InMemoryDeliveryLog();
    const platform = new FakeMessagingChannel(options.channel);
    const credentials = new InMemoryBotTokenStore('token' in options ? options.token : 'bot-token', options.stored);
    const configured = 'configured' in options ? options.configured : SECRET;
    const channel: ChatChannel = {
      platform,
      credentials,
      settings: {
        webhookSecret: configured,
        allowedChatIds: new Set(['42', '99', '5', 'C1', '1']),
        variables: { botToken: 'FAKE_BOT_TOKEN', webhookSecret: 'FAKE_WEBHOOK_SECRET', allowedChats: 'FAKE_CHATS' },
      },
    };
    const requests = new InMemoryInboundRequestStore();
    const fire = new FireTriggers(triggers, requests, queue, new SequentialIds(), clock, logger, new InMemoryTriggerLanes());
    const receive = new ReceiveMessagingUpdate(new MessagingChannels([channel]), deliveries, queue, fire, clock, logger);
    const requestOf = (body: unknown, headers: Record<string, string>) => ({ headers, rawBody: new TextEncoder().encode(JSON.stringify(body)) });
    const deliver = (body: unknown, ...secret: [string | undefined] | []) => {
      const given = secret.length === 0 ? SECRET : secret[0];
      const headers = given === undefined ? {} : platform.headersFor(JSON.stringify(body), given, clock.now());
      // Answered, then the trigger runs it fired queued (after the answer), for the tests to see.
      return receive
        .execute({
          channel: platform.id,
          request: requestOf(body, headers),
          parseBody: () => body,
          triggers: { watchPath: '/messaging/fake/webhook', request: { body, query: {}, headers: {} } },
        })
        .then(async (outcome) => {
          await fire.dispatched();
          return outcome;
        });
    };
    const chatTasks = () => queue.tasks.filter((t) => t.queue === CHAT_MESSAGE_QUEUE).map((t) => (t.payload as ChatMessageTask).message);
    const triggerRuns = () => queue.tasks.filter((t) => t.queue === TRIGGER_RUN_QUEUE).map((t) => (t.payload as TriggerRunTask).trigger);
    return { queue, deliveries, credentials, logger, receive, deliver, chatTasks, triggerRuns, platform, channel, requestOf, requests, fire };
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
      expect(await failure(receive.authorize('fake', secret === undefined ? {} : { 'x-fake-secret': secret })), String(secret)).to.have.property(
        'code',
        'unauthorized',
      );
    }
    expect(queue.tasks).to.deep.equal([]);
    expect(deliveries.seen.size).to.equal(0);
  });

  it('checks the secret a registration stored when none is configured', async () => {
    const { deliver, receive, chatTasks } = make({ configured: undefined, stored: 'generated-secret' });
    expect(await failure(deliver(update(1), SECRET))).to.have.property('code', 'unauthorized');
    await receive.authorize('fake', { 'x-fake-secret': 'generated-secret' });
    expect(await deliver(update(2), 'generated-secret')).to.deep.equal({ kind: 'ok' });
    expect(chatTasks().map((m) => m.metadata.updateId)).to.deep.equal(['2']);
  });

  it('prefers the configured secret over a stored one', async () => {
    const { deliver } = make({ stored: 'generated-secret' });
    expect(await failure(deliver(update(1), 'generated-secret'))).to.have.property('code', 'unauthorized');
    expect(await deliver(update(2))).to.deep.equal({ kind: 'ok' });
  });

  it('refuses a channel it does not have', async () => {
    const { receive } = make();
    expect(await failure(receive.authorize('other', {}))).to.have.property('code', 'not_found');
  });

  it('stores a message as a task of its chat on its channel, fires the watching triggers (of the endpoint and its other paths), and answers ok', async () => {
    const { deliver, chatTasks, triggerRuns, queue, receive, requestOf, platform, fire } = make();
    expect(await deliver(update(7, '99', 'hi there'))).to.deep.equal({ kind: 'ok' });
    expect(chatTasks()).to.have.length(1);
    expect(chatTasks()[0]).to.include({ threadId: '99', text: 'hi there' });
    expect(chatTasks()[0].metadata).to.include({ userId: 'fake', chatTitle: 'Fake', updateId: '7', messageId: '70' });
    expect(queue.tasks.find((t) => t.queue === CHAT_MESSAGE_QUEUE)?.group).to.equal('fake:99');
    expect(triggerRuns()).to.deep.equal(['on-chat']);
    // An update on the alias path fires the triggers of both paths, each once.
    const body = update(8);
    await receive.execute({
      channel: 'fake',
      request: requestOf(body, platform.headersFor(JSON.stringify(body), SECRET, clock.now())),
      parseBody: () => body,
      triggers: { watchPath: '/messaging/webhook', sameEndpointAs: ['/messaging/fake/webhook'], request: { body, query: {}, headers: {} } },
    });
    await fire.dispatched();
    expect(triggerRuns()).to.deep.equal(['on-chat', 'on-chat', 'on-alias']);
  });

  it('runs a repeated delivery id once: one chat task and one firing of the triggers, also for deliveries that carry no message', async () => {
    const { deliver, chatTasks, triggerRuns, logger } = make();
    await deliver(update(7));
    await deliver(update(7));
    await Promise.all([deliver(update(8)), deliver(update(8)), deliver(update(8))]);
    const membership: FakeDelivery = { id: '9' };
    await deliver(membership);
    await deliver(membership);
    expect(chatTasks().map((m) => m.metadata.updateId)).to.deep.equal(['7', '8']);
    expect(triggerRuns()).to.have.length(3);
    expect(logger.entries.filter((e) => e.message.startsWith('repeated update'))).to.have.length(4);
  });

  it('stores the message and fires the triggers of a delivery recorded just before a stop, when the platform sends it again, once', async () => {
    const { deliver, chatTasks, triggerRuns, deliveries, requests, logger } = make();
    // The stop came after the delivery was recorded and before its work was stored.
    await deliveries.recordFirst('fake:update:21', 'update');
    await deliver(update(21));
    await deliver(update(21));
    expect(chatTasks().map((m) => m.metadata.updateId)).to.deep.equal(['21']);
    expect(triggerRuns()).to.deep.equal(['on-chat']);
    expect(requests.requests.size).to.equal(1);
    expect(logger.entries.map((e) => e.message)).to.include('repeated update: its message was not stored before (a stop came between), stored now');
  });

  it('answers a message carried by two deliveries (a mention arriving as a message and as a mention) once, firing the triggers for each', async () => {
    const { deliver, chatTasks, triggerRuns } = make();
    await deliver({ id: 'Ev1', message: { chat: 'C1', id: '1.1', text: 'hi @bot', key: 'C1:1.1' } } satisfies FakeDelivery);
    await deliver({ id: 'Ev2', message: { chat: 'C1', id: '1.1', text: 'hi', key: 'C1:1.1' } } satisfies FakeDelivery);
    await deliver({ id: 'Ev3', message: { chat: 'C1', id: '1.2', text: 'next', key: 'C1:1.2' } } satisfies FakeDelivery);
    expect(chatTasks().map((m) => m.metadata.updateId)).to.deep.equal(['Ev1', 'Ev3']);
    expect(triggerRuns()).to.have.length(3);
  });

  it("refuses a delivery without an id with the channel's 400, running nothing", async () => {
    const { deliver, queue } = make();
    for (const body of [{}, { id: 5 }, [], 'text', null]) {
      const error = await failure(deliver(body));
      expect(error, JSON.stringify(body)).to.have.property('code', 'invalid_input');
      expect((error as Error).message).to.equal('Missing id');
    }
    expect(queue.tasks).to.deep.equal([]);
  });

  it('stores text holding a NUL or lone surrogates with each replaced by U+FFFD, so the message is still answered', async () => {
    const { deliver, chatTasks, triggerRuns } = make();
    await deliver(update(11, '5', 'a\u0000b \uD83D c \uDE00 d 🎉'));
    expect(chatTasks().map((m) => m.text)).to.deep.equal(['a\uFFFDb \uFFFD c \uFFFD d 🎉']);
    expect(triggerRuns()).to.have.length(1);
  });

  it('stores nothing without a bot token, and nothing for a delivery without a message to answer', async () => {
    const none = make({ token: undefined });
    expect(await none.deliver(update(1))).to.deep.equal({ kind: 'ok' });
    expect(none.queue.tasks).to.have.length(0);
    const { deliver, chatTasks } = make();
    expect(await deliver({ id: '5', message: { chat: '1', id: '2', text: 'beep', fromBot: true } })).to.deep.equal({ kind: 'ok' });
    expect(chatTasks()).to.have.length(0);
  });

  it("forgets the delivery when its work cannot be stored, so the platform's retry is run (once)", async () => {
    const { queue, deliver, chatTasks, triggerRuns, deliveries } = make();
    queue.failNext = true;
    expect(await failure(deliver(update(3)))).to.be.instanceOf(Error);
    expect(deliveries.seen.size).to.equal(0);
    await deliver(update(3));
    await deliver(update(3));
    expect(chatTasks()).to.have.length(1);
    expect(triggerRuns()).to.have.length(1);
  });

  it("stores a message's task and its request while the delivery is being recorded: the answer waits for one write, not three in turn", async () => {
    const { deliver, chatTasks, requests, deliveries } = make();
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const record = deliveries.recordFirst.bind(deliveries);
    deliveries.recordFirst = async (id, event) => {
      await held;
      return record(id, event);
    };
    const answered = deliver(update(12));
    // The record is held: the task and the request are stored meanwhile (a bounded wait for them, not a sleep).
    for (let turn = 0; turn < 100 && (chatTasks().length === 0 || requests.requests.size === 0); turn++) await new Promise(setImmediate);
    expect(chatTasks().map((m) => m.metadata.updateId)).to.deep.equal(['12']);
    expect(requests.requests.size).to.equal(1);
    expect(deliveries.seen.size).to.equal(0);
    release();
    expect(await answered).to.deep.equal({ kind: 'ok' });
    expect([...deliveries.seen.keys()]).to.deep.equal(['fake:update:12']);
  });

  it("answers an error when the delivery's record fails, and the platform's retry stores nothing twice: one task, one firing", async () => {
    const { deliver, chatTasks, triggerRuns, deliveries } = make();
    const record = deliveries.recordFirst.bind(deliveries);
    let fail = true;
    deliveries.recordFirst = async (id, event) => {
      if (!fail) return record(id, event);
      fail = false;
      throw new Error('database unavailable');
    };
    expect(await failure(deliver(update(13)))).to.have.property('message', 'database unavailable');
    expect(await deliver(update(13))).to.deep.equal({ kind: 'ok' });
    expect(await deliver(update(13))).to.deep.equal({ kind: 'ok' });
    expect(chatTasks().map((m) => m.metadata.updateId)).to.deep.equal(['13']);
    expect(triggerRuns()).to.deep.equal(['on-chat']);
    expect([...deliveries.seen.keys()]).to.deep.equal(['fake:update:13']);
  });

  describe('a channel whose platform signs the body (a signature with a timestamp, checked after the body is read)', () => {
    const signed = { channel: { signed: true } };

    it('takes a correctly signed delivery', async () => {
      const { deliver, chatTasks } = make(signed);
      expect(await deliver(update(1))).to.deep.equal({ kind: 'ok' });
      expect(chatTasks()).to.have.length(1);
    });

    it('refuses a body that does not match its signature, or a signature of another secret, running nothing and parsing nothing', async () => {
      const { receive, requestOf, queue, deliveries, platform } = make(signed);
      const body = update(1);
      const headers = platform.headersFor(JSON.stringify(body), SECRET, clock.now());
      // The headers alone pass (they are checked before the body is read)…
      await receive.authorize('fake', headers);
      // …the body they do not sign does not, and is never parsed.
      let parsed = 0;
      const parseBody = () => {
        parsed++;
        return body;
      };
      for (const request of [requestOf(update(2), headers), requestOf(body, platform.headersFor(JSON.stringify(body), 'other', clock.now()))]) {
        expect(
          await failure(
            receive.execute({
              channel: 'fake',
              request,
              parseBody,
              triggers: { watchPath: '/messaging/fake/webhook', request: { body, query: {}, headers: {} } },
            }),
          ),
        ).to.have.property('code', 'unauthorized');
      }
      expect(parsed).to.equal(0);
      expect(queue.tasks).to.deep.equal([]);
      expect(deliveries.seen.size).to.equal(0);
    });

    it("answers a verified delivery whose body cannot be taken with the parser's 400, running nothing", async () => {
      const { receive, requestOf, queue, deliveries, platform } = make(signed);
      const body = update(1);
      const request = requestOf(body, platform.headersFor(JSON.stringify(body), SECRET, clock.now()));
      const parseBody = () => {
        throw new DomainError('invalid_input', 'Invalid JSON body');
      };
      const error = await failure(
        receive.execute({ channel: 'fake', request, parseBody, triggers: { watchPath: '/messaging/fake/webhook', request: { body, query: {}, headers: {} } } }),
      );
      expect(error).to.include({ code: 'invalid_input', message: 'Invalid JSON body' });
      expect(queue.tasks).to.deep.equal([]);
      expect(deliveries.seen.size).to.equal(0);
    });

    it('refuses a signature without a timestamp, or one more than 5 minutes old, before the body is read', async () => {
      const { receive } = make(signed);
      const old = String(Math.floor(clock.now().getTime() / 1000) - 301);
      for (const headers of [{ 'x-fake-signature': fakeSignature(SECRET, old, '{}'), 'x-fake-timestamp': old }, { 'x-fake-signature': 'v0=x' }, {}]) {
        expect(await failure(receive.authorize('fake', headers)), JSON.stringify(headers)).to.have.property('code', 'unauthorized');
      }
    });

    it("answers the platform's handshake once it is signed, storing nothing; an unsigned one is refused", async () => {
      const { deliver, queue } = make(signed);
      expect(await deliver({ challenge: 'abc' })).to.deep.equal({ kind: 'handshake', body: { challenge: 'abc' } });
      expect(await failure(deliver({ challenge: 'abc' }, 'wrong'))).to.have.property('code', 'unauthorized');
      expect(queue.tasks).to.deep.equal([]);
    });
  });

  it('keeps every delivery in the delivery log, also one that fires no trigger, once', async () => {
    const { receive, requestOf, platform, requests } = make();
    const body = update(71);
    const send = () =>
      receive.execute({
        channel: 'fake',
        request: requestOf(body, platform.headersFor(JSON.stringify(body), SECRET, clock.now())),
        parseBody: () => body,
        // No trigger watches this path.
        triggers: { watchPath: '/messaging/signed/webhook', request: { body, query: {}, headers: {} } },
      });
    await send();
    await send();
    const stored = [...requests.requests.values()];
    expect(stored.map((request) => [request.watchPath, request.triggers, JSON.parse(request.request).body])).to.deep.equal([
      ['/messaging/signed/webhook', [], body],
    ]);
  });

  it('keeps the same delivery id of two channels apart', async () => {
    const queue = new InMemoryTaskQueue();
    const logger = new RecordingLogger();
    const settings = { webhookSecret: SECRET, allowedChatIds: new Set(['42']), variables: { botToken: 'A', webhookSecret: 'B', allowedChats: 'C' } };
    const one = new FakeMessagingChannel({ id: 'one' });
    const two = new FakeMessagingChannel({ id: 'two' });
    const channels = new MessagingChannels([one, two].map((platform) => ({ platform, credentials: new InMemoryBotTokenStore('t'), settings })));
    const receive = new ReceiveMessagingUpdate(
      channels,
      new InMemoryDeliveryLog(),
      queue,
      new FireTriggers([], new InMemoryInboundRequestStore(), queue, new SequentialIds(), clock, logger, new InMemoryTriggerLanes()),
      clock,
      logger,
    );
    for (const channel of ['one', 'two', 'one']) {
      const body = update(1);
      await receive.execute({
        channel,
        request: { headers: { 'x-fake-secret': SECRET }, rawBody: new Uint8Array() },
        parseBody: () => body,
        triggers: { watchPath: `/messaging/${channel}/webhook`, request: { body, query: {}, headers: {} } },
      });
    }
    expect(queue.tasks.map((t) => t.group)).to.deep.equal(['one:42', 'two:42']);
  });

  describe('#warnIfRefusingEverything (start-up)', () => {
    it('warns when a token is in force but no secret is configured nor stored, naming the variable and the registration', async () => {
      const { receive, logger } = make({ configured: undefined, stored: undefined, channel: { registers: true } });
      expect(await receive.warnIfRefusingEverything()).to.deep.equal(['fake']);
      const [warning] = logger.entries.filter((e) => e.level === 'warn');
      expect(warning.message).to.include('FAKE_WEBHOOK_SECRET');
      expect(warning.message).to.include('POST /api/messaging/fake/register');
    });

    it('stays quiet with a configured or stored secret, or without a token', async () => {
      for (const options of [{}, { configured: undefined, stored: 's' }, { configured: undefined, token: undefined }]) {
        const { receive, logger } = make(options);
        expect(await receive.warnIfRefusingEverything(), JSON.stringify(options)).to.deep.equal([]);
        expect(logger.entries).to.deep.equal([]);
      }
    });
  });
});
