import { expect } from 'chai';
import { NodeApiKeyCrypto } from '../../../../src/adapters/crypto/node-api-key-crypto.js';
import { MessagingChannels } from '../../../../src/application/messaging/messaging-channels.js';
import { RegisterMessagingWebhook, webhookUrlProblem } from '../../../../src/application/messaging/register-messaging-webhook.js';
import { FakeMessagingChannel } from '../../../fakes/fake-messaging-channel.js';
import { InMemoryBotTokenStore } from '../../../fakes/in-memory-bot-token-store.js';
import { RecordingLogger } from '../../../fakes/recording-logger.js';

const TOKEN = 'fake-abc123';
const URL = 'https://gateway.example.com/api/messaging/fake/webhook';
/** PUBLIC_URL of the tests that are not about where the webhook may point: URL is under it. */
const PUBLIC_URL = 'https://gateway.example.com';
const EVIL = 'https://evil.example/api/messaging/fake/webhook';
const unknownAddress = (base: string): string =>
  `Cannot register the webhook yet: PUBLIC_URL is not set, so the service cannot tell that ${base} is its own address, and the platform sends the webhook secret there. Set PUBLIC_URL to the service's public https address (docs/configuration.md) and register again`;

const failure = (promise: Promise<unknown>): Promise<{ code?: string; message?: string } | undefined> =>
  promise.then(
    () => undefined,
    (e: { code?: string; message?: string }) => e,
  );

describe('RegisterMessagingWebhook', () => {
  /** `publicUrl`: PUBLIC_URL, null for none. */
  const make = (configuredSecret: string | undefined, publicUrl: string | null = PUBLIC_URL) => {
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
    /** A registration by the service with PUBLIC_URL `given` (undefined: unset), on the same store and platform. */
    const registerWith = (given: string | undefined, body: unknown) =>
      new RegisterMessagingWebhook(channels, new NodeApiKeyCrypto(), logger, given).execute('fake', body);
    const register = { execute: (body: unknown) => registerWith(publicUrl ?? undefined, body) };
    const calls = () => channel.registered;
    return { channel, tokens, logger, register, registerWith, calls, channels };
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
    const { calls, register } = make(undefined, 'https://gateway.example.com/chat');
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

  it('without PUBLIC_URL, does not move the webhook from where an earlier registration pointed it: the webhook secret never reaches an address a key holder chose', async () => {
    const { calls, tokens, register, registerWith } = make('configured-secret', null);
    // registered while PUBLIC_URL was set; it is unset now
    await registerWith(PUBLIC_URL, { bot_token: TOKEN, webhook_url: URL });
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
    const { channel, calls, register, registerWith } = make(undefined, null);
    // the attacker's bot, registered where the service is (allowed), while PUBLIC_URL was set
    await registerWith(PUBLIC_URL, { bot_token: 'fake-attacker1', webhook_url: URL });
    // its webhook deleted at Telegram, then its token revoked: it delivers nowhere
    channel.registered.length = 0;
    channel.refusedTokens.add('fake-attacker1');
    const error = await failure(register.execute({ bot_token: 'fake-attacker2', webhook_url: 'https://evil.example/api/messaging/fake/webhook' }));
    expect(error?.message).to.match(/^Invalid webhook_url: the bot's webhook is registered at https:\/\/gateway\.example\.com now/);
    expect(calls().map((call) => call.url)).to.deep.equal([]);
  });

  it('pins, for a store from before registrations kept their address, where the bot in force delivers now; refuses (409) to choose a place when it delivers nowhere', async () => {
    const { channel, tokens, calls, register } = make(undefined, null);
    await tokens.register(TOKEN, 'old-secret'); // an upgrade: registered, no address kept
    await channel.registration!.setWebhook(TOKEN, URL, 'old-secret');
    expect((await failure(register.execute({ bot_token: TOKEN, webhook_url: EVIL })))?.code).to.equal('invalid_input');
    // at the pinned place: allowed
    await register.execute({ bot_token: TOKEN, webhook_url: 'https://gateway.example.com/api/messaging/webhook' });
    expect(calls().map((call) => call.url)).to.deep.equal([URL, 'https://gateway.example.com/api/messaging/webhook']);
    // another upgrade, whose bot's webhook was deleted at the platform (or its token revoked): nothing pins
    const other = make(undefined, null);
    await other.tokens.register(TOKEN, 'old-secret');
    other.channel.refusedTokens.add(TOKEN);
    const registrationsBefore = other.tokens.registrations;
    const error = await failure(other.register.execute({ bot_token: 'fake-new1', webhook_url: EVIL }));
    expect(error).to.include({ code: 'conflict', message: unknownAddress('https://evil.example') });
    expect(other.calls()).to.deep.equal([]);
    expect(other.tokens.registrations).to.equal(registrationsBefore);
    expect(other.tokens.registered).to.deep.equal({ token: TOKEN, secret: 'old-secret' });
  });

  it('without PUBLIC_URL and nothing pinned (a fresh deployment): refuses with 409 naming PUBLIC_URL; the platform is told nothing and no secret is made or stored', async () => {
    for (const configured of [undefined, 'configured-secret']) {
      const { calls, tokens, register, logger } = make(configured, null);
      for (const [url, base] of [
        [EVIL, 'https://evil.example'],
        // even its own address: the service cannot tell it is
        [URL, 'https://gateway.example.com'],
      ]) {
        const error = await failure(register.execute({ bot_token: TOKEN, webhook_url: url }));
        expect(error, url).to.include({ code: 'conflict', message: unknownAddress(base) });
      }
      expect(calls()).to.deep.equal([]);
      expect(tokens.registrations).to.equal(0);
      expect(tokens.registered).to.equal(undefined);
      expect(await tokens.webhookUrl()).to.equal(undefined);
      expect(logger.entries.filter((entry) => entry.message === 'messaging webhook registered')).to.deep.equal([]);
    }
  });

  it('without PUBLIC_URL and nothing pinned, a bot in force whose webhook points at another path pins nothing either (409)', async () => {
    const { channel, tokens, calls, register } = make(undefined, null);
    await tokens.register(TOKEN, 'old-secret');
    await channel.registration!.setWebhook(TOKEN, 'https://gateway.example.com/somewhere-else', 'old-secret');
    const error = await failure(register.execute({ bot_token: TOKEN, webhook_url: EVIL }));
    expect(error?.code).to.equal('conflict');
    expect(calls().map((call) => call.url)).to.deep.equal(['https://gateway.example.com/somewhere-else']);
  });

  it('without PUBLIC_URL and nothing pinned, a missing or invalid field is still the 400 naming it', async () => {
    const { calls, tokens, register } = make(undefined, null);
    expect(await failure(register.execute({ webhook_url: EVIL }))).to.include({ code: 'invalid_input', message: 'Missing bot_token or webhook_url' });
    expect(await failure(register.execute({ bot_token: 'not a token', webhook_url: EVIL }))).to.include({ code: 'invalid_input' });
    expect(await failure(register.execute({ bot_token: TOKEN, webhook_url: 'http://evil.example/api/messaging/fake/webhook' }))).to.include({
      code: 'invalid_input',
      message: 'Invalid webhook_url: expected an absolute https:// URL',
    });
    expect(await failure(register.execute({ bot_token: TOKEN, webhook_url: 'https://evil.example/' }))).to.include({
      code: 'invalid_input',
      message: "Invalid webhook_url: expected the address of this service's /api/messaging/webhook or /api/messaging/fake/webhook",
    });
    expect(calls()).to.deep.equal([]);
    expect(tokens.registrations).to.equal(0);
  });

  it('with PUBLIC_URL: only addresses under it, wherever the webhook is now (nothing pinned is no obstacle)', async () => {
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

describe('webhookUrlProblem', () => {
  const at = (url: string, allowed: { publicUrl?: string; pinned?: string }) => webhookUrlProblem(url, 'fake', allowed);

  it('without PUBLIC_URL and nothing pinned: a conflict (409), whatever the host', () => {
    expect(at(EVIL, {})).to.deep.equal({ code: 'conflict', message: unknownAddress('https://evil.example') });
    expect(at('https://gateway.example.com/gw/api/messaging/webhook', {})).to.deep.equal({
      code: 'conflict',
      message: unknownAddress('https://gateway.example.com/gw'),
    });
    // a pin that is no webhook address pins nothing
    expect(at(URL, { pinned: 'https://gateway.example.com/' })?.code).to.equal('conflict');
    // The caller's address is repeated cut: a megabyte of it is not sent back whole.
    const long = `https://gateway.example.com/${'a'.repeat(1_000_000)}`;
    const { message } = at(`${long}/api/messaging/webhook`, {}) ?? {};
    expect(message).to.equal(unknownAddress(`${long.slice(0, 200)}…`));
  });

  it('pinned: the pinned base only', () => {
    expect(at(URL, { pinned: 'https://gateway.example.com/api/messaging/webhook' })).to.equal(undefined);
    expect(at(EVIL, { pinned: URL })?.code).to.equal('invalid_input');
  });

  it('PUBLIC_URL: under it only, whatever is pinned', () => {
    expect(at(URL, { publicUrl: PUBLIC_URL })).to.equal(undefined);
    expect(at(URL, { publicUrl: PUBLIC_URL, pinned: EVIL })).to.equal(undefined);
    expect(at(EVIL, { publicUrl: PUBLIC_URL, pinned: EVIL })).to.deep.equal({
      code: 'invalid_input',
      message: `Invalid webhook_url: expected an address under PUBLIC_URL (${PUBLIC_URL})`,
    });
  });

  it('a path that is not the webhook is a 400 first, before anything else', () => {
    expect(at('https://evil.example/', {})?.code).to.equal('invalid_input');
  });
});
