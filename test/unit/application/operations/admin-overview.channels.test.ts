import { expect } from 'chai';
import { AdminOverview } from '../../../../src/application/operations/admin-overview.js';
import { MessagingChannels } from '../../../../src/application/messaging/messaging-channels.js';
import { FakeMessagingChannel } from '../../../fakes/fake-messaging-channel.js';
import { InMemoryBotTokenStore } from '../../../fakes/in-memory-bot-token-store.js';

describe('AdminOverview#channels', () => {
  it('lists every channel of the registry with its token state, webhook (where it registers) and allowed chats', async () => {
    const variables = { botToken: 'A_TOKEN', webhookSecret: 'A_SECRET', allowedChats: 'A_CHATS' };
    const registering = new FakeMessagingChannel({ id: 'reg', title: 'Registering', registers: true });
    await registering.registration!.setWebhook('t', 'https://gw.example.com/api/messaging/reg/webhook', 's');
    const channels = new MessagingChannels([
      { platform: registering, credentials: new InMemoryBotTokenStore('t'), settings: { webhookSecret: 's', allowedChatIds: new Set(['1', '2']), variables } },
      {
        platform: new FakeMessagingChannel({ id: 'console', title: 'Console' }),
        credentials: new InMemoryBotTokenStore('t'),
        settings: { webhookSecret: 's', allowedChatIds: new Set(), variables, mode: 'polling' },
      },
      {
        platform: new FakeMessagingChannel({ id: 'off', title: 'Off', registers: true }),
        credentials: new InMemoryBotTokenStore(),
        settings: { webhookSecret: undefined, allowedChatIds: new Set(), variables },
      },
    ]);
    const overview = new AdminOverview({
      triggers: [],
      runs: {} as never,
      requests: {} as never,
      jobs: {} as never,
      figures: {} as never,
      storage: {} as never,
      channels,
      conversations: {} as never,
      facts: { version: '1', startedAt: new Date(), databaseEngine: 'x', jobRunner: 'y' },
    });
    const listed = await overview.channels();
    expect(listed.map((c) => [c.id, c.title, c.configured, c.registers])).to.deep.equal([
      ['reg', 'Registering', true, true],
      ['console', 'Console', true, false],
      ['off', 'Off', false, true],
    ]);
    expect(listed[0].webhook).to.deep.include({ url: 'https://gw.example.com/api/messaging/reg/webhook' });
    expect(listed[0].allowedChatIds).to.deep.equal(['1', '2']);
    expect(listed[1]).to.not.have.property('webhook');
    expect(listed[2].variables.allowedChats).to.equal('A_CHATS');
    expect(
      listed.map((c) => c.polling),
      'fetched by polling',
    ).to.deep.equal([false, true, false]);
  });
});
