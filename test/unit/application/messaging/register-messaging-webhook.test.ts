import { expect } from 'chai';
import { NodeApiKeyCrypto } from '../../../../src/adapters/crypto/node-api-key-crypto.js';
import { MessagingChannels } from '../../../../src/application/messaging/messaging-channels.js';
import { RegisterMessagingWebhook } from '../../../../src/application/messaging/register-messaging-webhook.js';
import { FakeMessagingChannel } from '../../../fakes/fake-messaging-channel.js';
import { InMemoryBotTokenStore } from '../../../fakes/in-memory-bot-token-store.js';
import { RecordingLogger } from '../../../fakes/recording-logger.js';

const TOKEN = 'fake-abc123';
const URL = 'https://gateway.example.com/api/messaging/fake/webhook';

const failure = (promise: Promise<unknown>): Promise<{ code?: string; message?: string } | undefined> =>
  promise.then(
    () => undefined,
    (e: { code?: string; message?: string }) => e,
  );

describe('RegisterMessagingWebhook', () => {
  const make = (configuredSecret: string | undefined) => {
    const channel = new FakeMessagingChannel({ registers: true });
    const tokens = new InMemoryBotTokenStore();
    const logger = new RecordingLogger();
    const settings = {
      webhookSecret: configuredSecret,
      allowedChatIds: new Set<string>(),
      variables: { botToken: 'A', webhookSecret: 'B', allowedChats: 'C' },
    };
    const unregistered = new FakeMessagingChannel({ id: 'console' });
    const channels = new MessagingChannels([
      { platform: channel, credentials: tokens, settings },
      { platform: unregistered, credentials: new InMemoryBotTokenStore(), settings },
    ]);
    const register = { execute: (body: unknown) => new RegisterMessagingWebhook(channels, new NodeApiKeyCrypto(), logger).execute('fake', body) };
    const calls = () => channel.registered;
    return { channel, tokens, logger, register, calls, channels };
  };

  it('without a configured webhook secret: sends a new strong secret to the platform and stores it next to the token', async () => {
    const { calls, tokens, register, logger } = make(undefined);
    await register.execute({ bot_token: TOKEN, webhook_url: URL });
    const [set] = calls();
    expect(set).to.include({ token: TOKEN, url: URL });
    expect(set.secret).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect({ token: tokens.token, secret: tokens.secret }).to.deep.equal({ token: TOKEN, secret: set.secret });
    expect(JSON.stringify(logger.entries)).not.to.include(set.secret);
    // each registration makes a new one
    await register.execute({ bot_token: TOKEN, webhook_url: URL });
    expect(calls()[1].secret)
      .to.match(/^[A-Za-z0-9_-]{43}$/)
      .and.not.equal(set.secret);
  });

  it('with a configured webhook secret: sends it, and stores no secret of its own', async () => {
    const { calls, tokens, register } = make('configured-secret');
    await register.execute({ bot_token: TOKEN, webhook_url: URL });
    expect(calls()[0].secret).to.equal('configured-secret');
    expect({ token: tokens.token, secret: tokens.secret }).to.deep.equal({ token: TOKEN, secret: undefined });
  });

  it('refuses (409, naming the mode variable) a channel in polling mode, calling nothing and storing nothing', async () => {
    const channel = new FakeMessagingChannel({ registers: true });
    const tokens = new InMemoryBotTokenStore();
    const settings = {
      webhookSecret: undefined,
      allowedChatIds: new Set<string>(),
      mode: 'polling' as const,
      variables: { botToken: 'A', webhookSecret: 'B', allowedChats: 'C', mode: 'FAKE_MODE' },
    };
    const register = new RegisterMessagingWebhook(
      new MessagingChannels([{ platform: channel, credentials: tokens, settings }]),
      new NodeApiKeyCrypto(),
      new RecordingLogger(),
    );
    const error = await failure(register.execute('fake', { bot_token: TOKEN, webhook_url: URL }));
    expect(error).to.include({ code: 'conflict' });
    expect(error?.message).to.include('FAKE_MODE=polling');
    expect(channel.registered).to.deep.equal([]);
    expect(tokens.registrations).to.equal(0);
  });

  it("refuses a channel whose platform's webhook is not registered through the gateway (404)", async () => {
    const { channels } = make(undefined);
    const error = await failure(
      new RegisterMessagingWebhook(channels, new NodeApiKeyCrypto(), new RecordingLogger()).execute('console', { bot_token: TOKEN, webhook_url: URL }),
    );
    expect(error?.code).to.equal('not_found');
  });

  const invalid: Array<[string, Record<string, unknown>, string]> = [
    [
      "a token not of the platform's form, with the form in the message",
      { bot_token: 'not a token', webhook_url: URL },
      'Invalid bot_token: expected the form fake-abc123',
    ],
    ['a NUL in the token', { bot_token: `${TOKEN}\u0000x`, webhook_url: URL }, 'Invalid bot_token'],
    ['an http:// URL', { bot_token: TOKEN, webhook_url: 'http://gateway.example.com/api/messaging/webhook' }, 'Invalid webhook_url'],
    ['a relative URL', { bot_token: TOKEN, webhook_url: '/api/messaging/webhook' }, 'Invalid webhook_url'],
    ['a NUL in the URL', { bot_token: TOKEN, webhook_url: `${URL}\u0000` }, 'Invalid webhook_url'],
    ['a tab in the URL (the URL parser would drop it)', { bot_token: TOKEN, webhook_url: 'https://gate\tway.example.com/' }, 'Invalid webhook_url'],
    ['credentials in the URL', { bot_token: TOKEN, webhook_url: 'https://user:pw@gateway.example.com/' }, 'Invalid webhook_url'],
    ['a URL that is no URL', { bot_token: TOKEN, webhook_url: 'https://' }, 'Invalid webhook_url'],
  ];
  for (const [what, body, message] of invalid) {
    it(`refuses ${what} with 400 naming the field, before calling the platform`, async () => {
      const { calls, tokens, register } = make(undefined);
      const error = await failure(register.execute(body));
      expect(error?.code).to.equal('invalid_input');
      expect(error?.message).to.match(new RegExp(`^${message}`));
      expect(calls()).to.deep.equal([]);
      expect(tokens.registrations).to.equal(0);
    });
  }

  it('keeps "Missing bot_token or webhook_url" for absent or non-text fields', async () => {
    const { calls, register } = make(undefined);
    for (const body of [{}, { bot_token: TOKEN }, { webhook_url: URL }, { bot_token: 5, webhook_url: URL }, null, 'x']) {
      expect((await failure(register.execute(body)))?.message, JSON.stringify(body)).to.equal('Missing bot_token or webhook_url');
    }
    expect(calls()).to.deep.equal([]);
  });

  it('keeps nothing when the platform refuses: "Failed to register webhook"', async () => {
    const { channel, tokens, register } = make(undefined);
    channel.failRegistration = true;
    const error = await failure(register.execute({ bot_token: TOKEN, webhook_url: URL }));
    expect(error).to.include({ code: 'internal', message: 'Failed to register webhook' });
    expect(tokens.registrations).to.equal(0);
  });
});
