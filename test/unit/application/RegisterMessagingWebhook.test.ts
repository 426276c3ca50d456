import { expect } from 'chai';
import { NodeApiKeyCrypto } from '../../../src/adapters/crypto/NodeApiKeyCrypto.js';
import { RegisterMessagingWebhook } from '../../../src/application/RegisterMessagingWebhook.js';
import type { MessagingChannel, WebhookInfo } from '../../../src/ports/MessagingChannel.js';
import { InMemoryBotTokenStore } from '../../fakes/InMemoryBotTokenStore.js';
import { RecordingLogger } from '../../fakes/RecordingLogger.js';

const TOKEN = '123456:ABC-def_GHI';
const URL = 'https://gateway.example.com/api/messaging/webhook';

class RecordingChannel {
  readonly id = 'telegram';
  readonly calls: Array<{ method: string; token: string; url?: string; secret?: string }> = [];
  failSetWebhook = false;
  async setWebhook(token: string, url: string, secret: string): Promise<void> {
    this.calls.push({ method: 'setWebhook', token, url, secret });
    if (this.failSetWebhook) throw new Error('platform said no');
  }
  async getWebhookInfo(token: string): Promise<WebhookInfo> {
    this.calls.push({ method: 'getWebhookInfo', token });
    return { url: URL, hasCustomCertificate: false, pendingUpdateCount: 0 };
  }
}

const failure = (promise: Promise<unknown>): Promise<{ code?: string; message?: string } | undefined> =>
  promise.then(() => undefined, (e: { code?: string; message?: string }) => e);

describe('RegisterMessagingWebhook', () => {
  const make = (configuredSecret: string | undefined) => {
    const channel = new RecordingChannel();
    const tokens = new InMemoryBotTokenStore();
    const logger = new RecordingLogger();
    const register = new RegisterMessagingWebhook(channel as unknown as MessagingChannel, tokens, configuredSecret, new NodeApiKeyCrypto(), logger);
    return { channel, tokens, logger, register };
  };

  it('without MESSAGING_WEBHOOK_SECRET: sends a new strong secret to the platform and stores it next to the token', async () => {
    const { channel, tokens, register, logger } = make(undefined);
    await register.execute({ bot_token: TOKEN, webhook_url: URL });
    const [set] = channel.calls;
    expect(set).to.include({ method: 'setWebhook', token: TOKEN, url: URL });
    expect(set.secret).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(tokens.registered).to.deep.equal({ token: TOKEN, secret: set.secret });
    expect(JSON.stringify(logger.entries)).not.to.include(set.secret);
    // each registration makes a new one
    await register.execute({ bot_token: TOKEN, webhook_url: URL });
    expect(channel.calls[2].secret).to.match(/^[A-Za-z0-9_-]{43}$/).and.not.equal(set.secret);
  });

  it('with MESSAGING_WEBHOOK_SECRET: sends it, and stores no secret of its own', async () => {
    const { channel, tokens, register } = make('configured-secret');
    await register.execute({ bot_token: TOKEN, webhook_url: URL });
    expect(channel.calls[0].secret).to.equal('configured-secret');
    expect(tokens.registered).to.deep.equal({ token: TOKEN, secret: undefined });
  });

  const invalid: Array<[string, Record<string, unknown>, string]> = [
    ['a NUL in the token', { bot_token: `${TOKEN}\u0000x`, webhook_url: URL }, 'Invalid bot_token'],
    ['a token that is no bot token', { bot_token: 'not a token', webhook_url: URL }, 'Invalid bot_token'],
    ['a newline in the token', { bot_token: '123:abc\ndef', webhook_url: URL }, 'Invalid bot_token'],
    ['a token with a path in it', { bot_token: '123:abc/../../x', webhook_url: URL }, 'Invalid bot_token'],
    ['an http:// URL', { bot_token: TOKEN, webhook_url: 'http://gateway.example.com/api/messaging/webhook' }, 'Invalid webhook_url'],
    ['a relative URL', { bot_token: TOKEN, webhook_url: '/api/messaging/webhook' }, 'Invalid webhook_url'],
    ['a NUL in the URL', { bot_token: TOKEN, webhook_url: `${URL}\u0000` }, 'Invalid webhook_url'],
    ['a tab in the URL (the URL parser would drop it)', { bot_token: TOKEN, webhook_url: 'https://gate\tway.example.com/' }, 'Invalid webhook_url'],
    ['credentials in the URL', { bot_token: TOKEN, webhook_url: 'https://user:pw@gateway.example.com/' }, 'Invalid webhook_url'],
    ['a URL that is no URL', { bot_token: TOKEN, webhook_url: 'https://' }, 'Invalid webhook_url'],
  ];
  for (const [what, body, message] of invalid) {
    it(`refuses ${what} with 400 naming the field, before calling the platform`, async () => {
      const { channel, tokens, register } = make(undefined);
      const error = await failure(register.execute(body));
      expect(error?.code).to.equal('invalid_input');
      expect(error?.message).to.match(new RegExp(`^${message}`));
      expect(channel.calls).to.deep.equal([]);
      expect(tokens.registered).to.equal(undefined);
    });
  }

  it('keeps "Missing bot_token or webhook_url" for absent or non-text fields', async () => {
    const { channel, register } = make(undefined);
    for (const body of [{}, { bot_token: TOKEN }, { webhook_url: URL }, { bot_token: 5, webhook_url: URL }, null, 'x']) {
      expect((await failure(register.execute(body)))?.message, JSON.stringify(body)).to.equal('Missing bot_token or webhook_url');
    }
    expect(channel.calls).to.deep.equal([]);
  });

  it('keeps nothing when the platform refuses: "Failed to register webhook"', async () => {
    const { channel, tokens, register } = make(undefined);
    channel.failSetWebhook = true;
    const error = await failure(register.execute({ bot_token: TOKEN, webhook_url: URL }));
    expect(error).to.include({ code: 'internal', message: 'Failed to register webhook' });
    expect(tokens.registered).to.equal(undefined);
  });
});
