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
  const make = (configuredSecret: string | undefined, publicUrl?: string) => {
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
    const register = { execute: (body: unknown) => new RegisterMessagingWebhook(channels, new NodeApiKeyCrypto(), logger, publicUrl).execute('fake', body) };
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
  });

  it('a later registration gives the platform the stored secret again: one that fails half-way leaves the platform with a secret still accepted', async () => {
    const { channel, calls, tokens, register } = make(undefined);
    await register.execute({ bot_token: TOKEN, webhook_url: URL });
    const stored = tokens.secret;
    // The platform takes the new address, then the registration fails (here: at the platform's answer).
    channel.failRegistration = true;
    expect(await failure(register.execute({ bot_token: 'fake-other1', webhook_url: URL }))).to.include({ message: 'Failed to register webhook' });
    expect(calls()[1]).to.include({ token: 'fake-other1', secret: stored });
    expect(tokens.secret).to.equal(stored);
    channel.failRegistration = false;
    await register.execute({ bot_token: 'fake-other1', webhook_url: URL });
    expect(calls()[2].secret).to.equal(stored);
    expect({ token: tokens.token, secret: tokens.secret }).to.deep.equal({ token: 'fake-other1', secret: stored });
  });

  it('refuses (400, before calling the platform) an address that is not the chat webhook: every update would be refused there', async () => {
    const { calls, register } = make(undefined);
    for (const url of ['https://gateway.example.com/api/webhook', 'https://gateway.example.com/', 'https://gateway.example.com/api/messaging/other/webhook']) {
      const error = await failure(register.execute({ bot_token: TOKEN, webhook_url: url }));
      expect(error, url).to.include({ code: 'invalid_input' });
      expect(error?.message).to.equal("Invalid webhook_url: expected the address of this service's /api/messaging/webhook or /api/messaging/fake/webhook");
    }
    expect(calls()).to.deep.equal([]);
    // behind a proxy's prefix, and on the alias path, it is the webhook
    await register.execute({ bot_token: TOKEN, webhook_url: 'https://gateway.example.com/chat/api/messaging/webhook' });
    expect(calls()).to.have.length(1);
  });

  it('does not move the webhook elsewhere: the webhook secret never reaches an address a key holder chose', async () => {
    const { calls, tokens, register } = make('configured-secret');
    await register.execute({ bot_token: TOKEN, webhook_url: URL });
    const moved =
      "Invalid webhook_url: the bot's webhook is registered at https://gateway.example.com now, and a registration does not move it elsewhere (to move it, set PUBLIC_URL to the service's new public address)";
    for (const [token, url] of [
      [TOKEN, 'https://evil.example/api/messaging/fake/webhook'],
      ['fake-attacker1', 'https://evil.example/api/messaging/fake/webhook'],
      // another app behind the same proxy
      [TOKEN, 'https://gateway.example.com/other-app/api/messaging/fake/webhook'],
    ]) {
      const error = await failure(register.execute({ bot_token: token, webhook_url: url }));
      expect(error, url).to.include({ code: 'invalid_input', message: moved });
    }
    expect(calls().map((call) => call.url)).to.deep.equal([URL]);
    expect(tokens.token).to.equal(TOKEN);
    // the alias path, a trailing slash, a query string, another bot: all at the same place
    for (const url of [
      'https://gateway.example.com/api/messaging/webhook',
      'https://gateway.example.com/api/messaging/fake/webhook/',
      'https://GATEWAY.example.com:443/api/messaging/fake/webhook?x=1',
    ])
      await register.execute({ bot_token: 'fake-second1', webhook_url: url });
    expect(calls()).to.have.length(4);
  });

  it("keeps the place pinned when the bot in force stops delivering: a key holder's own bot, its webhook deleted or its token revoked, frees nothing", async () => {
    const { channel, calls, register } = make(undefined);
    // the attacker's bot, registered where the service is (allowed)
    await register.execute({ bot_token: 'fake-attacker1', webhook_url: URL });
    // its webhook deleted at Telegram, then its token revoked: it delivers nowhere
    channel.registered.length = 0;
    channel.refusedTokens.add('fake-attacker1');
    const error = await failure(register.execute({ bot_token: 'fake-attacker2', webhook_url: 'https://evil.example/api/messaging/fake/webhook' }));
    expect(error?.message).to.match(/^Invalid webhook_url: the bot's webhook is registered at https:\/\/gateway\.example\.com now/);
    expect(calls().map((call) => call.url)).to.deep.equal([]);
  });

  it('pins, for a store from before registrations kept their address, where the bot in force delivers now; any place when it delivers nowhere', async () => {
    const { channel, tokens, calls, register } = make(undefined);
    await tokens.register(TOKEN, 'old-secret'); // an upgrade: registered, no address kept
    await channel.registration!.setWebhook(TOKEN, URL, 'old-secret');
    expect((await failure(register.execute({ bot_token: TOKEN, webhook_url: 'https://evil.example/api/messaging/fake/webhook' })))?.code).to.equal(
      'invalid_input',
    );
    channel.refusedTokens.add(TOKEN);
    await register.execute({ bot_token: 'fake-new1', webhook_url: 'https://new.example.com/api/messaging/fake/webhook' });
    expect(
      calls()
        .map((call) => call.url)
        .at(-1),
    ).to.equal('https://new.example.com/api/messaging/fake/webhook');
  });

  it('with PUBLIC_URL: only addresses under it, wherever the webhook is now', async () => {
    const { calls, register } = make(undefined, 'https://public.example.com/gw');
    for (const url of [URL, 'https://public.example.com/api/messaging/fake/webhook', 'https://public.example.com.evil.example/gw/api/messaging/fake/webhook']) {
      const error = await failure(register.execute({ bot_token: TOKEN, webhook_url: url }));
      expect(error?.message, url).to.equal('Invalid webhook_url: expected an address under PUBLIC_URL (https://public.example.com/gw)');
    }
    await register.execute({ bot_token: TOKEN, webhook_url: 'https://public.example.com/gw/api/messaging/fake/webhook' });
    expect(calls().map((call) => call.url)).to.deep.equal(['https://public.example.com/gw/api/messaging/fake/webhook']);
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
    // a body without its fields is a 400 first, as on any channel (SPEC 4.3)
    expect(await failure(register.execute('fake', {}))).to.include({ code: 'invalid_input', message: 'Missing bot_token or webhook_url' });
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
