import { DomainError } from '../domain/errors/DomainError.js';
import type { ApiKeyCrypto } from '../ports/ApiKeyCrypto.js';
import type { BotTokenStore } from '../ports/BotTokenStore.js';
import type { Logger } from '../ports/Logger.js';
import type { MessagingChannel, WebhookInfo } from '../ports/MessagingChannel.js';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);

/** A bot token as the platform issues them: the bot's number, a colon, then letters, digits, `_` and `-`. */
const TOKEN_SHAPE = /^[0-9]{1,20}:[A-Za-z0-9_-]{1,200}$/;
/** Control characters (the URL parser would silently drop tabs and newlines). */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const MAX_URL_LENGTH = 2048;

const isHttpsUrl = (value: string): boolean => {
  if (value.length > MAX_URL_LENGTH || CONTROL.test(value)) return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.hostname !== '' && url.username === '' && url.password === '';
  } catch {
    return false;
  }
};

/**
 * SPEC 4.3: registers the bot's webhook with the platform, reads the webhook back, and keeps
 * the token, which overrides MESSAGING_BOT_TOKEN from now on. The input is validated before
 * the platform is called (a 400 naming the field). The webhook secret is MESSAGING_WEBHOOK_SECRET
 * or, when that is not set, a new random one, stored next to the token: updates are only ever
 * accepted with a secret. Any failure past validation is `Failed to register webhook`; the cause
 * goes to the log, never the token or the secret.
 */
export class RegisterMessagingWebhook {
  constructor(
    private readonly channel: MessagingChannel,
    private readonly tokens: BotTokenStore,
    private readonly webhookSecret: string | undefined,
    private readonly crypto: ApiKeyCrypto,
    private readonly logger: Logger,
  ) {}

  async execute(body: unknown): Promise<WebhookInfo> {
    const fields = isRecord(body) ? body : {};
    const token = text(fields.bot_token);
    const url = text(fields.webhook_url);
    if (token === undefined || url === undefined) throw new DomainError('invalid_input', 'Missing bot_token or webhook_url');
    if (!TOKEN_SHAPE.test(token)) throw new DomainError('invalid_input', 'Invalid bot_token: expected the form 123456:ABC-DEF1234ghIkl');
    if (!isHttpsUrl(url)) throw new DomainError('invalid_input', 'Invalid webhook_url: expected an absolute https:// URL');
    const generated = this.webhookSecret === undefined ? this.crypto.secret() : undefined;
    try {
      await this.channel.setWebhook(token, url, this.webhookSecret ?? (generated as string));
      const info = await this.channel.getWebhookInfo(token);
      await this.tokens.register(token, generated);
      this.logger.info({ channel: this.channel.id, url: info.url, generatedSecret: generated !== undefined }, 'messaging webhook registered');
      return info;
    } catch (error) {
      this.logger.error({ err: error, channel: this.channel.id }, 'messaging webhook registration failed');
      throw new DomainError('internal', 'Failed to register webhook', { cause: error });
    }
  }
}
