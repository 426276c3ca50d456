import { expect } from 'chai';
import { SlackChannel } from '../../../src/adapters/messaging/slack/slack-channel.js';
import { TelegramChannel } from '../../../src/adapters/messaging/telegram/telegram-channel.js';
import { startFakeSlack, type FakeSlack } from '../../support/fake-slack.js';
import { startFakeTelegram, type FakeTelegram } from '../../support/fake-telegram.js';

const TOKEN = '123456:SEND-once';
const TOO_MANY = { status: 429, body: { ok: false, error_code: 429, description: 'Too Many Requests: retry after 30', parameters: { retry_after: 30 } } };

describe('TelegramChannel.sendMessage once: one attempt, a rate limit not waited for, against the fake Bot API', () => {
  let tg: FakeTelegram;
  let channel: TelegramChannel;
  const waits: number[] = [];
  beforeEach(async () => {
    tg = await startFakeTelegram([TOKEN]);
    waits.length = 0;
    channel = new TelegramChannel({
      apiUrl: tg.url,
      attempts: 4,
      backoffMs: 0,
      maxRetryAfterMs: 60_000,
      timeoutMs: 5000,
      sleep: async (ms) => void waits.push(ms),
    });
  });
  afterEach(async () => tg.close());

  it('gives a rate-limited message up after its one attempt, with no wait', async () => {
    tg.failNext('sendMessage', TOO_MANY, 3);
    const error = await channel.sendMessage(TOKEN, { chatId: '-100777' }, { plain: 'not allowed' }, { once: true }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.an('error');
    expect(tg.of('sendMessage')).to.have.length(1);
    expect(waits).to.deep.equal([]);
  });

  it('tries any other message again after a rate limit, waiting as asked (as before)', async () => {
    tg.failNext('sendMessage', TOO_MANY, 2);
    await channel.sendMessage(TOKEN, { chatId: '42' }, { plain: 'hello' });
    expect(tg.of('sendMessage')).to.have.length(3);
    expect(waits).to.deep.equal([30_000, 30_000]);
  });
});

describe('SlackChannel.sendMessage once: one attempt, a rate limit not waited for, against the fake Web API', () => {
  const SLACK_TOKEN = 'xoxb-send-once';
  let slack: FakeSlack;
  let channel: SlackChannel;
  const waits: number[] = [];
  beforeEach(async () => {
    slack = await startFakeSlack([SLACK_TOKEN]);
    waits.length = 0;
    channel = new SlackChannel({
      apiUrl: slack.url,
      attempts: 4,
      backoffMs: 0,
      maxRetryAfterMs: 60_000,
      timeoutMs: 5000,
      sleep: async (ms) => void waits.push(ms),
    });
  });
  afterEach(async () => slack.close());

  const RATE_LIMITED = { status: 429, body: { ok: false, error: 'ratelimited' }, retryAfter: 30 };

  it('gives a rate-limited message up after its one attempt, with no wait', async () => {
    slack.failNext('chat.postMessage', RATE_LIMITED, 3);
    const error = await channel.sendMessage(SLACK_TOKEN, { chatId: 'C0STRANGER' }, { plain: 'not allowed' }, { once: true }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.an('error');
    expect(slack.of('chat.postMessage')).to.have.length(1);
    expect(waits).to.deep.equal([]);
  });

  it('tries any other message again after a rate limit, waiting as asked (as before)', async () => {
    slack.failNext('chat.postMessage', RATE_LIMITED, 2);
    await channel.sendMessage(SLACK_TOKEN, { chatId: 'C0ALLOWED' }, { plain: 'hello' });
    expect(slack.of('chat.postMessage')).to.have.length(3);
    expect(waits).to.deep.equal([30_000, 30_000]);
  });
});
