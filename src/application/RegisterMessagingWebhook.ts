import { DomainError } from '../domain/errors/DomainError.js';
import type { BotTokenStore } from '../ports/BotTokenStore.js';
import type { Logger } from '../ports/Logger.js';
import type { MessagingChannel, WebhookInfo } from '../ports/MessagingChannel.js';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);

/**
 * SPEC 4.3: registers the bot's webhook with the platform (with the webhook secret), reads
 * the webhook back, and keeps the token, which overrides MESSAGING_BOT_TOKEN from now on.
 * Any failure is `Failed to register webhook`; the cause goes to the log, never the token.
 */
export class RegisterMessagingWebhook {
  constructor(
    private readonly channel: MessagingChannel,
    private readonly tokens: BotTokenStore,
    private readonly webhookSecret: string | undefined,
    private readonly logger: Logger,
  ) {}

  async execute(body: unknown): Promise<WebhookInfo> {
    const fields = isRecord(body) ? body : {};
    const token = text(fields.bot_token);
    const url = text(fields.webhook_url);
    if (token === undefined || url === undefined) throw new DomainError('invalid_input', 'Missing bot_token or webhook_url');
    try {
      if (this.webhookSecret === undefined) throw new Error('MESSAGING_WEBHOOK_SECRET is not set');
      await this.channel.setWebhook(token, url, this.webhookSecret);
      const info = await this.channel.getWebhookInfo(token);
      await this.tokens.register(token);
      this.logger.info({ channel: this.channel.id, url: info.url }, 'messaging webhook registered');
      return info;
    } catch (error) {
      this.logger.error({ err: error, channel: this.channel.id }, 'messaging webhook registration failed');
      throw new DomainError('internal', 'Failed to register webhook', { cause: error });
    }
  }
}
