import { expect } from 'chai';
import { TelegramChannel } from '../../../src/adapters/messaging/telegram/telegram-channel.js';
import { startFakeTelegram, type FakeTelegram } from '../../support/fake-telegram.js';

const TOKEN = '123456:APPROVAL-buttons';
/** Half of a surrogate pair with no other half: text Telegram refuses as not UTF-8. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('TelegramChannel approval buttons against the fake Bot API', () => {
  let tg: FakeTelegram;
  let channel: TelegramChannel;
  beforeEach(async () => {
    tg = await startFakeTelegram([TOKEN]);
    channel = new TelegramChannel({ apiUrl: tg.url, attempts: 1, backoffMs: 0, maxRetryAfterMs: 0, timeoutMs: 5000 });
  });
  afterEach(async () => tg.close());

  it('answers a press with at most 200 characters and never half of an emoji (a trigger name with emoji at the cut), and says the outcome whole', async () => {
    // The 200th UTF-16 unit is the first half of 🚀.
    const outcome = `Approved by Telegram @ada (42): trigger "${'x'.repeat(158)}🚀🚀", action 0 runs now.`;
    expect(outcome.charCodeAt(199)).to.be.within(0xd800, 0xdbff);
    await channel.settle(TOKEN, { data: 'agw-approve:x', chatId: '-100555', userId: '42', messageId: '70', pressId: 'cq-1' }, outcome);
    const [answer] = tg.of('answerCallbackQuery');
    const toast = String(answer.body.text);
    expect(toast.length).to.be.at.most(200);
    expect(LONE_SURROGATE.test(toast), 'a lone surrogate in the answer').to.equal(false);
    expect(outcome.startsWith(toast)).to.equal(true);
    const [said] = tg.of('sendMessage');
    expect(said.body.text).to.equal(outcome);
  });
});
