import { DomainError } from '../../domain/errors/domain-error.js';
const isRecord = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);
/** Control characters (the URL parser would silently drop tabs and newlines). */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const MAX_URL_LENGTH = 2048;
const isHttpsUrl = (value) => {
    if (value.length > MAX_URL_LENGTH || CONTROL.test(value))
        return false;
    try {
        const url = new URL(value);
        return url.protocol === 'https:' && url.hostname !== '' && url.username === '' && url.password === '';
    }
    catch {
        return false;
    }
};
/**
 * SPEC 4.3, for a channel whose platform registers its webhook by an API call: registers the
 * bot's webhook with the platform, reads the webhook back, and keeps the token, which overrides
 * the configured one from now on. The input is validated before the platform is called (a 400
 * naming the field). The webhook secret is the channel's configured one or, when none is set, a
 * new random one, stored next to the token: updates are only ever accepted with a secret. Any
 * failure past validation is `Failed to register webhook`; the cause goes to the log, never the
 * token or the secret.
 */
export class RegisterMessagingWebhook {
    channels;
    crypto;
    logger;
    constructor(channels, crypto, logger) {
        this.channels = channels;
        this.crypto = crypto;
        this.logger = logger;
    }
    /** @throws DomainError `not_found` for a channel without registration, `conflict` for a channel that polls. */
    async execute(channelId, body) {
        const { platform, credentials, settings } = this.channels.get(channelId);
        const registration = platform.registration;
        if (registration === undefined)
            throw new DomainError('not_found', `The ${platform.title} webhook is not registered through the gateway`);
        if (settings.mode === 'polling') {
            throw new DomainError('conflict', `${platform.title} is in polling mode (${settings.variables.mode ?? 'its mode variable'}=polling): the gateway fetches updates itself, no webhook is registered`);
        }
        const fields = isRecord(body) ? body : {};
        const token = text(fields.bot_token);
        const url = text(fields.webhook_url);
        if (token === undefined || url === undefined)
            throw new DomainError('invalid_input', 'Missing bot_token or webhook_url');
        const tokenProblem = registration.tokenProblem(token);
        if (tokenProblem !== undefined)
            throw new DomainError('invalid_input', `Invalid bot_token: ${tokenProblem}`);
        if (!isHttpsUrl(url))
            throw new DomainError('invalid_input', 'Invalid webhook_url: expected an absolute https:// URL');
        const generated = settings.webhookSecret === undefined ? this.crypto.secret() : undefined;
        try {
            await registration.setWebhook(token, url, settings.webhookSecret ?? generated);
            const info = await registration.getWebhookInfo(token);
            await credentials.register(token, generated);
            this.logger.info({ channel: platform.id, url: info.url, generatedSecret: generated !== undefined }, 'messaging webhook registered');
            return info;
        }
        catch (error) {
            this.logger.error({ err: error, channel: platform.id }, 'messaging webhook registration failed');
            throw new DomainError('internal', 'Failed to register webhook', { cause: error });
        }
    }
}
//# sourceMappingURL=register-messaging-webhook.js.map