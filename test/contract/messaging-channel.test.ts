import { TelegramChannel } from '../../src/adapters/messaging/telegram/telegram-channel.js';
import { startFakeTelegram } from '../support/fake-telegram.js';
import { describeMessagingChannelContract, type ChannelHarness, type ChannelOperation, type PlatformFailure } from './messaging-channel.contract.js';

const TOKEN = '123456:TEST-token';
const CHAT = 4242;

/** The Bot API methods behind the contract's operations, and Telegram's answers for its failures. */
const METHODS: Record<ChannelOperation, string> = { send: 'sendMessage', typing: 'sendChatAction', acknowledge: 'setMessageReaction' };
const FAILURES: Record<PlatformFailure, { status: number; body: Record<string, unknown> }> = {
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
    attempts: (operation) => fake.of(METHODS[operation]).length,
    failNext: (operation, failure, times) => fake.failNext(METHODS[operation], FAILURES[failure], times),
    addFile: (name, data) => {
      const id = `file-${fake.files.size + 1}`;
      fake.files.set(id, { path: `documents/${name}`, data: Buffer.from(data) });
      return id;
    },
    registeredWebhook: () => {
      const call = fake.of('setWebhook').at(-1);
      return call && { url: String(call.body.url), secret: String(call.body.secret_token) };
    },
    queueDelivery: (n, text) => void fake.pushUpdate(message(n, { id: CHAT, is_bot: false, first_name: 'Ada' }, text)),
    close: () => fake.close(),
  };
};

describeMessagingChannelContract('Telegram against a loopback fake Bot API', openTelegram);
