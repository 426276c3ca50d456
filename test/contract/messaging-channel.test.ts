import { expect } from 'chai';
import { SlackChannel } from '../../src/adapters/messaging/slack/slack-channel.js';
import { slackSignature } from '../../src/adapters/messaging/slack/slack-signature.js';
import { TelegramChannel } from '../../src/adapters/messaging/telegram/telegram-channel.js';
import { FakeMessagingChannel, type FakeChannelOptions, type FakeOperation } from '../fakes/fake-messaging-channel.js';
import { startFakeSlack, type SlackFailure } from '../support/fake-slack.js';
import { startFakeTelegram } from '../support/fake-telegram.js';
import { describeMessagingChannelContract, type ChannelHarness, type ChannelOperation, type PlatformFailure } from './messaging-channel.contract.js';

const TOKEN = '123456:TEST-token';
const CHAT = 4242;

/** The Bot API methods behind the contract's operations, and Telegram's answers for its failures. */
const TELEGRAM_METHODS: Record<ChannelOperation, string> = { send: 'sendMessage', acknowledge: 'setMessageReaction' };
const TELEGRAM_FAILURES: Record<PlatformFailure, { status: number; body: Record<string, unknown> }> = {
  'rate-limit': { status: 429, body: { ok: false, error_code: 429, description: 'Too Many Requests: retry after 1', parameters: { retry_after: 1 } } },
  'server-error': { status: 500, body: { ok: false, error_code: 500, description: 'Internal Server Error' } },
  refused: { status: 400, body: { ok: false, error_code: 400, description: 'Bad Request: REACTION_INVALID' } },
};

const openTelegram = async (): Promise<ChannelHarness> => {
  const fake = await startFakeTelegram([TOKEN]);
  const waits: number[] = [];
  const sleep = async (ms: number): Promise<void> => void waits.push(ms);
  const message = (updateId: number, from: Record<string, unknown>, text: string) => ({
    update_id: updateId,
    message: { message_id: updateId * 10, date: 1_767_225_600, chat: { id: CHAT, type: 'private', first_name: 'Ada' }, from, text },
  });
  return {
    channel: new TelegramChannel({ apiUrl: fake.url, attempts: 3, backoffMs: 0, maxRetryAfterMs: 5000, timeoutMs: 5000, sleep }),
    waits,
    token: TOKEN,
    invalidToken: '999:wrong',
    chatId: String(CHAT),
    topicId: '17',
    textDelivery: (n, text) => message(n, { id: CHAT, is_bot: false, first_name: 'Ada' }, text),
    botDelivery: (n) => message(n, { id: 777, is_bot: true, first_name: 'Bot' }, 'beep'),
    headersFor: (_raw, secret) => ({ 'x-telegram-bot-api-secret-token': secret }),
    unparseableFormat: 'x <y>',
    sent: () =>
      fake.of('sendMessage').map((call) => ({
        text: String(call.body.text),
        formatted: call.body.parse_mode === 'HTML',
        ...(call.body.message_thread_id !== undefined && { topicId: String(call.body.message_thread_id) }),
      })),
    typings: () => fake.of('sendChatAction').filter((call) => call.body.action === 'typing').length,
    acknowledgements: () => fake.of('setMessageReaction').map((call) => String(call.body.message_id)),
    attempts: (operation) => fake.of(TELEGRAM_METHODS[operation]).length,
    failNext: (operation, failure, times) => fake.failNext(TELEGRAM_METHODS[operation], TELEGRAM_FAILURES[failure], times),
    addFile: (name, data, breaks) => {
      const id = `file-${fake.files.size + 1}`;
      fake.files.set(id, { path: `documents/${id}-${name}`, data: Buffer.from(data), ...(breaks && { breaks }) });
      return id;
    },
    registeredWebhook: () => {
      const call = fake.of('setWebhook').at(-1);
      return call && { url: String(call.body.url), secret: String(call.body.secret_token) };
    },
    queueDelivery: (n, text) => void fake.pushUpdate(message(n, { id: CHAT, is_bot: false, first_name: 'Ada' }, text)),
    polls: () => fake.of('getUpdates').length,
    close: () => fake.close(),
  };
};

describeMessagingChannelContract('Telegram against a loopback fake Bot API', openTelegram);

const SLACK_TOKEN = 'xoxb-1111-2222-contractToken';
const SLACK_CHANNEL = 'C0CONTRACT';

/** The Web API methods behind the contract's operations, and Slack's answers for its failures. */
const SLACK_METHODS: Record<ChannelOperation, string> = { send: 'chat.postMessage', acknowledge: 'reactions.add' };
const SLACK_FAILURES: Record<PlatformFailure, SlackFailure> = {
  'rate-limit': { status: 429, body: { ok: false, error: 'ratelimited' }, retryAfter: 1 },
  'server-error': { status: 500, body: { ok: false, error: 'internal_error' } },
  refused: { status: 200, body: { ok: false, error: 'message_not_found' } },
};

const openSlack = async (): Promise<ChannelHarness> => {
  const fake = await startFakeSlack([SLACK_TOKEN]);
  const waits: number[] = [];
  const sleep = async (ms: number): Promise<void> => void waits.push(ms);
  const event = (n: number, event: Record<string, unknown>) => ({
    token: 'legacy-verification-token',
    team_id: 'T0001',
    api_app_id: 'A0001',
    type: 'event_callback',
    event_id: `Ev0CONTRACT${n}`,
    event_time: 1_767_225_600 + n,
    event: { type: 'message', channel: SLACK_CHANNEL, channel_type: 'channel', ts: `${1_767_225_600 + n}.000100`, ...event },
  });
  return {
    channel: new SlackChannel({ apiUrl: fake.url, attempts: 3, backoffMs: 0, maxRetryAfterMs: 5000, timeoutMs: 5000, sleep }),
    waits,
    token: SLACK_TOKEN,
    invalidToken: 'xoxb-9999-wrong',
    chatId: SLACK_CHANNEL,
    topicId: '1767225000.000200',
    textDelivery: (n, text) => event(n, { user: 'U0ADA', text }),
    botDelivery: (n) => event(n, { subtype: 'bot_message', bot_id: 'B0OTHER', text: 'beep' }),
    headersFor: (raw, secret, now) => {
      const timestamp = String(Math.floor(now.getTime() / 1000));
      return { 'x-slack-request-timestamp': timestamp, 'x-slack-signature': slackSignature(secret, timestamp, raw) };
    },
    sent: () =>
      fake.of('chat.postMessage').map((call) => ({
        text: String(call.body.text),
        formatted: call.body.mrkdwn !== false,
        ...(call.body.thread_ts !== undefined && { topicId: String(call.body.thread_ts) }),
      })),
    typings: () => 0,
    acknowledgements: () =>
      fake
        .of('reactions.add')
        .filter((call) => call.body.channel === SLACK_CHANNEL)
        .map((call) => String(call.body.timestamp)),
    attempts: (operation) => fake.of(SLACK_METHODS[operation]).length,
    failNext: (operation, failure, times) => fake.failNext(SLACK_METHODS[operation], SLACK_FAILURES[failure], times),
    addFile: (name, data, breaks) => {
      const id = `F0${fake.files.size + 1}`;
      fake.files.set(id, { name, mimetype: 'image/jpeg', data: Buffer.from(data), ...(breaks && { breaks }) });
      return id;
    },
    registeredWebhook: () => undefined,
    close: () => fake.close(),
  };
};

describeMessagingChannelContract('Slack against a loopback fake Web API', openSlack);

const FAKE_TOKEN = 'fake-contract1';
const FAKE_CHAT = 'C42';
const FAKE_OPERATIONS: Record<ChannelOperation, FakeOperation> = { send: 'send', acknowledge: 'acknowledge' };

/**
 * The in-memory fake the unit tests use, as the platform and its adapter at once: what it
 * received is its `requests`. Run in both of its shapes — a secret header with registration
 * and "typing…" (as Telegram), a signature without either (as Slack) — so that a use case
 * tested against it meets the behaviour the real channels have. It has no polling (the
 * polling use case's test gives it its own), so the polling cases are pending here.
 */
const openFake = (options: FakeChannelOptions) => async (): Promise<ChannelHarness> => {
  const waits: number[] = [];
  const channel = new FakeMessagingChannel({ attempts: 3, sleep: async (ms) => void waits.push(ms), ...options });
  const invalidToken = 'fake-revoked1';
  channel.refusedTokens.add(invalidToken);
  const delivery = (n: number, text: string, fromBot = false) => ({ id: `d${n}`, message: { chat: FAKE_CHAT, id: String(n * 10), text, fromBot } });
  const of = (operation: FakeOperation) => channel.requests.filter((request) => request.operation === operation);
  return {
    channel,
    waits,
    token: FAKE_TOKEN,
    invalidToken,
    chatId: FAKE_CHAT,
    topicId: 'T7',
    textDelivery: (n, text) => delivery(n, text),
    botDelivery: (n) => delivery(n, 'beep', true),
    headersFor: (raw, secret, now) => channel.headersFor(raw, secret, now),
    unparseableFormat: 'x <y>',
    sent: () =>
      of('send').map((request) => ({
        text: String(request.text),
        formatted: request.formatted === true,
        ...(request.target?.topicId !== undefined && { topicId: request.target.topicId }),
      })),
    typings: () => channel.typing.length,
    acknowledgements: () => channel.acknowledged.filter((ack) => ack.target.chatId === FAKE_CHAT).map((ack) => ack.messageId),
    attempts: (operation) => of(FAKE_OPERATIONS[operation]).length,
    failNext: (operation, failure, times) => channel.failNext(FAKE_OPERATIONS[operation], failure, times),
    addFile: (name, data, breaks) => channel.addFile(`documents/${name}`, data, breaks),
    registeredWebhook: () => {
      const registered = channel.registered.at(-1);
      return registered && { url: registered.url, secret: registered.secret };
    },
    close: async () => undefined,
  };
};

describeMessagingChannelContract(
  'FakeMessagingChannel (in memory), a secret header, registration and typing',
  openFake({ registers: true, typingRefreshMs: 4000 }),
);
describeMessagingChannelContract('FakeMessagingChannel (in memory), signed, without registration or typing', openFake({ signed: true }));

describe('TelegramChannel against a loopback fake Bot API: a formatted part Telegram finds too long', () => {
  it('goes as its plain text, delivered all the same', async () => {
    const fake = await startFakeTelegram([TOKEN]);
    try {
      const channel = new TelegramChannel({ apiUrl: fake.url, attempts: 1, backoffMs: 0, maxRetryAfterMs: 0, timeoutMs: 5000 });
      await channel.sendMessage(TOKEN, { chatId: String(CHAT) }, { plain: 'x'.repeat(4000), formatted: `<b>${'x'.repeat(4100)}</b>` });
      expect(fake.of('sendMessage').map((call) => [call.body.parse_mode ?? 'plain', String(call.body.text).length])).to.deep.equal([
        ['HTML', 4107],
        ['plain', 4000],
      ]);
    } finally {
      await fake.close();
    }
  });
});

describe('TelegramChannel against a loopback fake Bot API: a reply whose HTML shows nothing', () => {
  it('reaches the chat as its plain text (an empty code block, a bare quote): Telegram refuses such HTML as "message text is empty"', async () => {
    const fake = await startFakeTelegram([TOKEN]);
    try {
      const channel = new TelegramChannel({ apiUrl: fake.url, attempts: 1, backoffMs: 0, maxRetryAfterMs: 0, timeoutMs: 5000 });
      const replies = ['```\n```', '```\n   \n```', '>', '~~~\n~~~'];
      for (const reply of replies) for (const part of channel.formatReply(reply)) await channel.sendMessage(TOKEN, { chatId: String(CHAT) }, part);
      expect(fake.of('sendMessage').map((call) => [call.body.parse_mode ?? 'plain', call.body.text])).to.deep.equal(replies.map((reply) => ['plain', reply]));
    } finally {
      await fake.close();
    }
  });

  it('sends a formatted part Telegram refuses as empty as its plain text', async () => {
    const fake = await startFakeTelegram([TOKEN]);
    try {
      const channel = new TelegramChannel({ apiUrl: fake.url, attempts: 1, backoffMs: 0, maxRetryAfterMs: 0, timeoutMs: 5000 });
      await channel.sendMessage(TOKEN, { chatId: String(CHAT) }, { plain: '```\n```', formatted: '<pre>\n</pre>' });
      expect(fake.of('sendMessage').map((call) => [call.body.parse_mode ?? 'plain', call.body.text])).to.deep.equal([
        ['HTML', '<pre>\n</pre>'],
        ['plain', '```\n```'],
      ]);
      const refused = await channel.sendMessage(TOKEN, { chatId: String(CHAT) }, { plain: '' }).then(
        () => 'sent',
        (error: Error) => error.message,
      );
      expect(refused).to.equal('Telegram sendMessage failed (400): Bad Request: message text is empty');
    } finally {
      await fake.close();
    }
  });
});

describe('TelegramChannel against a loopback fake Bot API: typing once', () => {
  it('makes one sendChatAction attempt and gives up a rate limit at once, with the wait Telegram asked for', async () => {
    const fake = await startFakeTelegram([TOKEN]);
    try {
      const waits: number[] = [];
      const sleep = async (ms: number): Promise<void> => void waits.push(ms);
      const channel = new TelegramChannel({ apiUrl: fake.url, attempts: 4, backoffMs: 0, maxRetryAfterMs: 60_000, timeoutMs: 5000, sleep });
      const limited = { status: 429, body: { ok: false, error_code: 429, description: 'Too Many Requests: retry after 30', parameters: { retry_after: 30 } } };
      fake.failNext('sendChatAction', limited, 5);
      const error = await channel.sendTyping(TOKEN, { chatId: String(CHAT) }, { once: true }).then(
        () => undefined,
        (failed: { status?: number; retryAfterMs?: number }) => failed,
      );
      expect(error).to.include({ status: 429, retryAfterMs: 30_000 });
      expect(fake.of('sendChatAction')).to.have.length(1);
      expect(waits).to.deep.equal([]);
    } finally {
      await fake.close();
    }
  });
});
