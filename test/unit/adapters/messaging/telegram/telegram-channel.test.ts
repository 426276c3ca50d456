import { expect } from 'chai';
import { TelegramChannel } from '../../../../../src/adapters/messaging/telegram/telegram-channel.js';

const channel = new TelegramChannel({ apiUrl: 'http://127.0.0.1:9', attempts: 1, backoffMs: 0, maxRetryAfterMs: 0, timeoutMs: 1000 });

describe('TelegramChannel (without the Bot API)', () => {
  it('takes bot tokens of the form Telegram issues, naming that form otherwise', () => {
    expect(channel.tokenProblem('123456:ABC-def_GHI')).to.equal(undefined);
    for (const token of ['not a token', '123456:ABC\u0000x', '123:abc\ndef', '123:abc/../../x', ':abc', '123:', 'abc:def']) {
      expect(channel.tokenProblem(token), JSON.stringify(token)).to.equal('expected the form 123456:ABC-DEF1234ghIkl');
    }
  });

  it('checks the secret header exactly (case, length, missing), and nothing else of the request', () => {
    const header = 'x-telegram-bot-api-secret-token';
    expect(channel.checkHeaders({ [header]: 'the-secret' }, 'the-secret')).to.equal(true);
    for (const given of ['THE-SECRET', 'the-secret ', 'the-secre', '', undefined]) {
      expect(channel.checkHeaders({ [header]: given }, 'the-secret'), String(given)).to.equal(false);
    }
    expect(channel.checkHeaders({ 'x-other': 'the-secret' }, 'the-secret')).to.equal(false);
    expect(channel.credentialHeaders).to.deep.equal([header]);
  });

  it("refuses an update without a whole, non-negative update_id with Telegram's message", () => {
    for (const body of [{}, { update_id: 'x' }, { update_id: -1 }, { update_id: 1.5 }, [], 'text', null, undefined]) {
      expect(() => channel.parse(body), JSON.stringify(body)).to.throw('Missing update_id');
    }
    expect(channel.parse({ update_id: 9, my_chat_member: {} })).to.deep.equal({ deliveryId: '9', message: null });
  });

  it('refuses to send to an id that is no Telegram number, before calling the platform', async () => {
    const error = await channel.acknowledge('1:a', { chatId: '1' }, 'abc').then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).to.contain('not a Telegram id');
  });
});
