import { DomainError } from '../../domain/errors/domain-error.js';
import type { ApiKeyCrypto } from '../../ports/api-key-crypto.js';
import type { Logger } from '../../ports/logger.js';
import type { WebhookInfo } from '../../ports/messaging-channel.js';
import type { MessagingChannels } from './messaging-channels.js';
import { shownInput } from '../../domain/errors/shown-input.js';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);

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

/** The paths of a channel's webhook: `…/api/messaging/webhook` (the alias) or `…/api/messaging/<id>/webhook`. */
const webhookPaths = (channelId: string): string[] => ['/api/messaging/webhook', `/api/messaging/${channelId}/webhook`];

/** `url`'s path without one trailing slash (the router serves both). */
const pathOf = (url: URL): string => (url.pathname.length > 1 ? url.pathname.replace(/\/$/, '') : url.pathname);

/** Where the service is, as an address tells: its origin and the prefix before the webhook's path (`https://host/prefix`). */
const baseOf = (url: string, channelId: string): string | undefined => {
  if (!URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  const path = pathOf(parsed);
  const suffix = webhookPaths(channelId).find((candidate) => path.endsWith(candidate));
  return suffix === undefined ? undefined : `${parsed.origin}${path.slice(0, -suffix.length)}`;
};

/** Why a registration may not point where it asks: a 400 (`invalid_input`) or a 409 (`conflict`), and the message. */
export interface WebhookUrlProblem {
  readonly code: 'invalid_input' | 'conflict';
  readonly message: string;
}

/** The most characters of a caller's webhook address an error repeats (the address is the caller's: up to the body limit). */
const SHOWN_ADDRESS_LENGTH = 200;

/**
 * Where a registration may point the platform's deliveries: to this service's chat webhook and
 * nowhere else, since every delivery carries the webhook secret. The path must be the channel's
 * webhook (`…/api/messaging/webhook` or `…/api/messaging/<id>/webhook`, behind any prefix a proxy
 * adds); the service, PUBLIC_URL when it is set, else where the last registration pointed
 * (`pinned`: the origin and the prefix before the webhook's path). With neither, the service
 * cannot tell its own address from anyone else's, so the first registration may not choose it
 * (a 409, fail closed): whoever holds an API key would otherwise have the secret sent to a host
 * of theirs. Undefined when `url` may be registered, else what is wrong.
 */
export const webhookUrlProblem = (
  url: string,
  channelId: string,
  allowed: { readonly publicUrl?: string; readonly pinned?: string },
): WebhookUrlProblem | undefined => {
  const invalid = (problem: string): WebhookUrlProblem => ({ code: 'invalid_input', message: `Invalid webhook_url: ${problem}` });
  const paths = webhookPaths(channelId);
  const base = baseOf(url, channelId);
  if (base === undefined) return invalid(`expected the address of this service's ${paths.join(' or ')}`);
  if (allowed.publicUrl !== undefined) {
    const given = new URL(allowed.publicUrl);
    const expected = `${given.origin}${given.pathname.replace(/\/+$/, '')}`;
    return base === expected ? undefined : invalid(`expected an address under PUBLIC_URL (${allowed.publicUrl})`);
  }
  const pinned = allowed.pinned === undefined ? undefined : baseOf(allowed.pinned, channelId);
  if (pinned === undefined) {
    return {
      code: 'conflict',
      message: `Cannot register the webhook yet: PUBLIC_URL is not set, so the service cannot tell that ${shownInput(base, SHOWN_ADDRESS_LENGTH)} is its own address, and the platform sends the webhook secret there. Set PUBLIC_URL to the service's public https address (docs/configuration.md) and register again`,
    };
  }
  if (base !== pinned)
    return invalid(
      `the bot's webhook is registered at ${pinned} now, and a registration does not move it elsewhere (to move it, set PUBLIC_URL to the service's new public address)`,
    );
  return undefined;
};

/**
 * SPEC 4.3, for a channel whose platform registers its webhook by an API call: registers the
 * bot's webhook with the platform, reads the webhook back, and keeps the token, which overrides
 * the configured one from now on. The input is validated before the platform is called (a 400
 * naming the field), the address too (webhookUrlProblem): the secret goes only where this
 * service is, and without PUBLIC_URL and an earlier registration's address nothing is registered
 * (409). The webhook secret is the channel's configured one or, when none is set, the one
 * an earlier registration stored, else a new random one, stored next to the token: updates are
 * only ever accepted with a secret, and a registration that fails half-way (the platform told,
 * the token not stored) leaves the platform with a secret that is still accepted. Any failure
 * past validation is `Failed to register webhook`; the cause goes to the log, never the token
 * or the secret.
 */
export class RegisterMessagingWebhook {
  constructor(
    private readonly channels: MessagingChannels,
    private readonly crypto: ApiKeyCrypto,
    private readonly logger: Logger,
    /** PUBLIC_URL: the service's public address; unset, a registration stays on the webhook's current host, and with none there is refused. */
    private readonly publicUrl?: string,
  ) {}

  /**
   * @throws DomainError `not_found` for a channel without registration, `conflict` for a channel
   * that polls or when the service knows no address of its own (no PUBLIC_URL, nothing pinned).
   */
  async execute(channelId: string, body: unknown): Promise<WebhookInfo> {
    const { platform, credentials, settings } = this.channels.get(channelId);
    const registration = platform.registration;
    if (registration === undefined) throw new DomainError('not_found', `The ${platform.title} webhook is not registered through the gateway`);
    const fields = isRecord(body) ? body : {};
    const token = text(fields.bot_token);
    const url = text(fields.webhook_url);
    if (token === undefined || url === undefined) throw new DomainError('invalid_input', 'Missing bot_token or webhook_url');
    if (settings.mode === 'polling') {
      throw new DomainError(
        'conflict',
        `${platform.title} is in polling mode (${settings.variables.mode ?? 'its mode variable'}=polling): the gateway fetches updates itself, no webhook is registered`,
      );
    }
    const tokenProblem = registration.tokenProblem(token);
    if (tokenProblem !== undefined) throw new DomainError('invalid_input', `Invalid bot_token: ${tokenProblem}`);
    if (!isHttpsUrl(url)) throw new DomainError('invalid_input', 'Invalid webhook_url: expected an absolute https:// URL');
    const failed = (error: unknown): DomainError => {
      this.logger.error({ err: error, channel: platform.id }, 'messaging webhook registration failed');
      return new DomainError('internal', 'Failed to register webhook', { cause: error });
    };
    let pinned: string | undefined;
    try {
      // Where the last registration pointed; for a store from before that was kept, where the bot
      // in force delivers now (null: the platform no longer knows its token). Not needed when
      // PUBLIC_URL says where the service is.
      if (this.publicUrl === undefined) {
        pinned = await credentials.webhookUrl();
        const inForce = pinned === undefined ? await credentials.current() : undefined;
        if (inForce !== undefined) pinned = (await registration.webhookUrl(inForce)) || undefined;
      }
    } catch (error) {
      throw failed(error);
    }
    // Refused before a secret is generated or stored and before the platform is told anything (the
    // look-up above only reads where the bot in force delivers).
    const problem = webhookUrlProblem(url, platform.id, { publicUrl: this.publicUrl, pinned });
    if (problem !== undefined) throw new DomainError(problem.code, problem.message);
    let secret: string | undefined;
    let stored: string | undefined;
    try {
      // The stored one, or a new one stored before the platform is told (two registrations at once
      // then give it the same one, and one that stops half-way leaves it a secret that is accepted).
      stored = settings.webhookSecret === undefined ? await credentials.webhookSecret() : undefined;
      secret = settings.webhookSecret === undefined ? await credentials.secretFor(() => this.crypto.secret()) : undefined;
    } catch (error) {
      throw failed(error);
    }
    try {
      await registration.setWebhook(token, url, settings.webhookSecret ?? (secret as string));
      const info = await registration.getWebhookInfo(token);
      await credentials.register(token, secret, url);
      this.logger.info({ channel: platform.id, url: info.url, generatedSecret: secret !== undefined && secret !== stored }, 'messaging webhook registered');
      return info;
    } catch (error) {
      throw failed(error);
    }
  }
}
