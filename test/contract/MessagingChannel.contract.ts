import { expect } from 'chai';
import type { MessagingChannel } from '../../src/ports/MessagingChannel.js';
import type { FakeTelegram } from '../support/fakeTelegram.js';

const TOKEN = '123456:TEST-token';

/** The behaviour every MessagingChannel adapter must have, against its platform's fake. */
/**
 * `open` builds the adapter against a fresh fake, with 3 attempts per call, no backoff, and a
 * recording `sleep` whose requested waits (ms) are in `waits`.
 */
export const describeMessagingChannelContract = (
  name: string,
  open: () => Promise<{ channel: MessagingChannel; fake: FakeTelegram; waits: number[] }>,
): void => {
  describe(`MessagingChannel contract: ${name}`, () => {
    let channel: MessagingChannel;
    let fake: FakeTelegram;
    let waits: number[];
    beforeEach(async () => {
      ({ channel, fake, waits } = await open());
    });
    afterEach(() => fake.close());

    it('registers the webhook with the secret and reads it back', async () => {
      await channel.setWebhook(TOKEN, 'https://gw.example.com/api/messaging/webhook', 'shh-secret');
      expect(fake.of('setWebhook')[0].body).to.include({ url: 'https://gw.example.com/api/messaging/webhook', secret_token: 'shh-secret' });
      expect(await channel.getWebhookInfo(TOKEN)).to.deep.include({ url: 'https://gw.example.com/api/messaging/webhook', hasCustomCertificate: false, pendingUpdateCount: 0 });
    });

    it('fails registration with the platform\'s reason and never the token', async () => {
      const error = await channel.setWebhook(TOKEN, 'http://not-https.example.com', 's').catch((e: Error) => e);
      expect((error as Error).message).to.contain('HTTPS URL must be provided');
      expect((error as Error).message).not.to.contain(TOKEN);
      const bad = await channel.getWebhookInfo('999:wrong').catch((e: Error) => e);
      expect((bad as Error).message).to.contain('Unauthorized').and.not.to.contain('999:wrong');
    });

    it('sends formatted text, and plain text when the platform refuses the formatting', async () => {
      await channel.sendMessage(TOKEN, { chatId: '42' }, { plain: 'hi *there*', formatted: 'hi <b>there</b>' });
      await channel.sendMessage(TOKEN, { chatId: '42', topicId: 7 }, { plain: 'x <y>', formatted: 'x <y>' });
      const sent = fake.of('sendMessage').map((call) => [call.body.text, call.body.parse_mode, call.body.message_thread_id]);
      expect(sent).to.deep.equal([
        ['hi <b>there</b>', 'HTML', undefined],
        ['x <y>', 'HTML', 7],
        ['x <y>', undefined, 7],
      ]);
    });

    it('waits out a rate limit as the platform asks, then sends', async () => {
      fake.failNext('sendMessage', { status: 429, body: { ok: false, error_code: 429, description: 'Too Many Requests: retry after 1', parameters: { retry_after: 1 } } });
      await channel.sendMessage(TOKEN, { chatId: '42' }, { plain: 'patient' });
      expect(waits).to.deep.equal([1000]);
      expect(fake.of('sendMessage')).to.have.length(2);
    });

    it('tries a server error again, and gives up with the platform\'s reason after the attempts', async () => {
      const failure = { status: 500, body: { ok: false, error_code: 500, description: 'Internal Server Error' } };
      fake.failNext('sendMessage', failure);
      await channel.sendMessage(TOKEN, { chatId: '42' }, { plain: 'second time lucky' });
      expect(fake.of('sendMessage').map((call) => call.body.text)).to.deep.equal(['second time lucky', 'second time lucky']);
      fake.failNext('sendChatAction', failure, 3);
      const error = await channel.sendTyping(TOKEN, { chatId: '42' }).catch((e: Error) => e);
      expect((error as Error).message).to.contain('Internal Server Error').and.not.to.contain(TOKEN);
      expect(fake.of('sendChatAction')).to.have.length(3);
    });

    it('does not try a refused call again (4xx other than 429)', async () => {
      fake.failNext('setMessageReaction', { status: 400, body: { ok: false, error_code: 400, description: 'Bad Request: REACTION_INVALID' } });
      const error = await channel.react(TOKEN, '42', 1, '✅').catch((e: Error) => e);
      expect((error as Error).message).to.contain('REACTION_INVALID');
      expect(fake.of('setMessageReaction')).to.have.length(1);
    });

    it('shows typing and reacts to a message', async () => {
      await channel.sendTyping(TOKEN, { chatId: '42' });
      await channel.react(TOKEN, '42', 77, '👀');
      expect(fake.of('sendChatAction')[0].body).to.deep.equal({ chat_id: '42', action: 'typing' });
      expect(fake.of('setMessageReaction')[0].body).to.deep.equal({ chat_id: '42', message_id: 77, reaction: [{ type: 'emoji', emoji: '👀' }] });
    });

    it('downloads a file by its id', async () => {
      fake.files.set('photo-1', { path: 'photos/file_1.jpg', data: Buffer.from([0xff, 0xd8, 0xff, 0xe0]) });
      const file = await channel.download(TOKEN, 'photo-1');
      expect(file.path).to.equal('photos/file_1.jpg');
      expect([...file.data]).to.deep.equal([0xff, 0xd8, 0xff, 0xe0]);
      const missing = await channel.download(TOKEN, 'nope').catch((e: Error) => e);
      expect(missing).to.be.instanceOf(Error);
    });
  });
};
