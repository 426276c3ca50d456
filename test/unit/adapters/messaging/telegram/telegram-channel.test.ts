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

  it('refuses an update without a whole, non-negative update_id, saying whether it is missing or not a whole number', () => {
    for (const body of [{}, { message: {} }, [], 'text', null, undefined]) {
      expect(() => channel.parse(body), JSON.stringify(body)).to.throw(/^Missing update_id$/);
    }
    for (const body of [{ update_id: 'x' }, { update_id: -1 }, { update_id: 1.5 }, { update_id: null }]) {
      expect(() => channel.parse(body), JSON.stringify(body)).to.throw(/^Invalid update_id: a whole number of 0 or more is expected$/);
    }
    expect(channel.parse({ update_id: 9, my_chat_member: {} })).to.deep.equal({ deliveryId: '9', message: null });
  });

  const chatMessage = (extra: Record<string, unknown>) => ({
    message_id: 5,
    date: 1767225600,
    chat: { id: 42, type: 'private' },
    from: { id: 7, is_bot: false, first_name: 'Ada' },
    ...extra,
  });

  it('answers no edit of a message (it was answered as first sent): an edited message or channel post is delivered with no message', () => {
    expect(channel.parse({ update_id: 10, message: chatMessage({ text: 'create a job to fix teh docs' }) }).message?.text).to.equal(
      'create a job to fix teh docs',
    );
    expect(channel.parse({ update_id: 11, edited_message: chatMessage({ text: 'create a job to fix the docs', edit_date: 1767225660 }) })).to.deep.equal({
      deliveryId: '11',
      message: null,
    });
    const post = { message_id: 6, date: 1767225600, chat: { id: -100, type: 'channel', title: 'News' }, text: 'fixed', edit_date: 1767225660 };
    expect(channel.parse({ update_id: 12, edited_channel_post: post })).to.deep.equal({ deliveryId: '12', message: null });
  });

  describe('a button press (callback_query): its data must be on a button of the message pressed', () => {
    const ONE = 'agw-approve:11111111-1111-4111-8111-111111111111';
    const ONE_DENY = 'agw-deny:11111111-1111-4111-8111-111111111111';
    const TWO = 'agw-approve:22222222-2222-4222-8222-222222222222';
    /** The approval question of ONE as Telegram hands it back with a press: its keyboard included. */
    const question = (extra: Record<string, unknown> = {}) => ({
      message_id: 70,
      date: 1767225600,
      chat: { id: -100555, type: 'supergroup', title: 'Approvers' },
      from: { id: 999, is_bot: true, first_name: 'Gateway' },
      text: 'Approval needed: …',
      reply_markup: {
        inline_keyboard: [
          [
            { text: 'Approve', callback_data: ONE },
            { text: 'Deny', callback_data: ONE_DENY },
          ],
        ],
      },
      ...extra,
    });
    const press = (data: string, message: Record<string, unknown>) =>
      channel.parse({
        update_id: 30,
        callback_query: { id: 'cq-1', from: { id: 7, is_bot: false, first_name: 'Ada', username: 'ada' }, chat_instance: '-1', data, message },
      });

    it("takes a press of one of the message's buttons", () => {
      expect(press(ONE_DENY, question()).choice).to.deep.equal({
        data: ONE_DENY,
        chatId: '-100555',
        userId: '7',
        userName: '@ada',
        messageId: '70',
        pressId: 'cq-1',
      });
    });

    it("refuses data that is on no button of the message (a modified client's): another approval's, on a message with no buttons left, on one without a keyboard", () => {
      for (const message of [question(), question({ reply_markup: { inline_keyboard: [] } }), question({ reply_markup: undefined })]) {
        expect(press(TWO, message), JSON.stringify(message.reply_markup)).to.deep.equal({ deliveryId: '30', message: null });
      }
      expect(press(ONE, question({ reply_markup: { inline_keyboard: [] } }))).to.deep.equal({ deliveryId: '30', message: null });
    });

    it('takes a press on a message too old for Telegram to hand back (an InaccessibleMessage, date 0) as it comes: nothing to check it against', () => {
      expect(press(TWO, { message_id: 70, date: 0, chat: { id: -100555, type: 'supergroup' } }).choice?.data).to.equal(TWO);
    });
  });

  it("gives the messages of one album one message key (answered once), each chat's albums their own, a message in no album none", () => {
    const part = (updateId: number, chat: number, group: string, extra: Record<string, unknown> = {}) =>
      channel.parse({
        update_id: updateId,
        message: chatMessage({
          chat: { id: chat, type: 'private' },
          media_group_id: group,
          photo: [{ file_id: `p${updateId}`, width: 90, height: 90 }],
          ...extra,
        }),
      });
    const first = part(20, 42, '1350', { caption: 'what is in these?' });
    const second = part(21, 42, '1350');
    expect(first.messageKey).to.equal('album:42:1350');
    expect(second.messageKey).to.equal(first.messageKey);
    expect(first.message?.text).to.equal('what is in these?');
    // Each message keeps its own text and file, and names its album, so the album can be answered with all of them.
    expect(second.message?.text).to.equal('');
    expect(second.message?.attachments.map((file) => file.fileId)).to.deep.equal(['p21']);
    expect(first.message?.metadata.albumId).to.equal('42:1350');
    expect(second.message?.metadata.albumId).to.equal('42:1350');
    const elsewhere = part(22, 43, '1350');
    expect(elsewhere.messageKey).to.equal('album:43:1350');
    expect(elsewhere.message?.metadata.albumId).to.equal('43:1350');
    const lone = channel.parse({ update_id: 23, message: chatMessage({ text: 'hi' }) });
    expect(lone).to.not.have.property('messageKey');
    expect(lone.message?.metadata).to.not.have.property('albumId');
  });

  it('cuts a reply into parts whose HTML shows at most 4096 characters, also when the HTML indents a long list item', () => {
    const markdown = `1. first item\n${'continued lazily\n'.repeat(400)}`;
    const parts = channel.formatReply(markdown);
    for (const part of parts) {
      expect(part.plain.length).to.be.at.most(4096);
      const shown = (part.formatted ?? '').replace(/<[^>]*>/g, '').replace(/&(?:lt|gt|amp|quot);/g, '_');
      expect(shown.length).to.be.at.most(4096);
    }
    expect(
      parts
        .map((part) => part.plain)
        .join('\n')
        .replace(/\s+/g, ' '),
    ).to.equal(markdown.replace(/\s+/g, ' ').trim());
    // Lines so short that the item's indent outweighs each several times: plain text rather than slivers (and never a failure).
    const deep = `1000. item\n${'x\n'.repeat(3000)}`;
    const deepParts = channel.formatReply(deep);
    expect(deepParts.length).to.be.greaterThan(0);
    for (const part of deepParts) {
      expect(part.plain.length).to.be.at.most(4096);
      if (part.formatted !== undefined) expect(part.formatted.replace(/<[^>]*>/g, '').length).to.be.at.most(4096);
    }
  });

  it('refuses to send to an id that is no Telegram number, before calling the platform', async () => {
    const error = await channel.acknowledge('1:a', { chatId: '1' }, 'abc').then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).to.contain('not a Telegram id');
  });
});
