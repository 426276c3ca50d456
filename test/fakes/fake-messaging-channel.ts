import { DomainError } from '../../src/domain/errors/domain-error.js';
import type { ChannelMessage } from '../../src/domain/messaging/channel-message.js';
import type {
  DownloadedFile,
  InboundRequest,
  MessagingChannel,
  OutgoingMessage,
  ParsedDelivery,
  ReplyTarget,
  WebhookInfo,
  WebhookRegistration,
} from '../../src/ports/messaging-channel.js';

/** A delivery of the fake platform: `{id, message?: {chat, id, text, topic?}}`, or `{challenge}` for its handshake. */
export interface FakeDelivery {
  readonly id?: string;
  readonly message?: {
    readonly chat: string;
    readonly id: string;
    readonly text: string;
    readonly topic?: string;
    readonly fromBot?: boolean;
    /** The message's own key, when another delivery can carry the same message (ParsedDelivery.messageKey). */
    readonly key?: string;
  };
  readonly challenge?: string;
}

export interface FakeChannelOptions {
  readonly id?: string;
  readonly title?: string;
  /** Signed like Slack (a signature over the body, with a timestamp) instead of a secret header like Telegram. */
  readonly signed?: boolean;
  readonly registers?: boolean;
  readonly threadsAreConversations?: boolean;
  readonly typingRefreshMs?: number;
  readonly maxMessageLength?: number;
}

/** The fake's signature of a body: `v0=<secret>:<timestamp>:<body>` (no cryptography needed to tell right from wrong). */
export const fakeSignature = (secret: string, timestamp: string, body: string): string => `v0=${secret}:${timestamp}:${body}`;

/**
 * An in-memory MessagingChannel for use-case tests: its own small platform protocol, either
 * shape of webhook authentication, and a record of everything sent.
 */
export class FakeMessagingChannel implements MessagingChannel {
  readonly id: string;
  readonly title: string;
  readonly maxMessageLength: number;
  readonly credentialHeaders: readonly string[];
  readonly threadsAreConversations: boolean;
  readonly typingRefreshMs: number | undefined;
  readonly registration?: WebhookRegistration;
  readonly sent: Array<{ token: string; target: ReplyTarget; message: OutgoingMessage }> = [];
  readonly typing: ReplyTarget[] = [];
  readonly acknowledged: Array<{ target: ReplyTarget; messageId: string }> = [];
  readonly registered: Array<{ token: string; url: string; secret: string }> = [];
  failRegistration = false;
  /** Tokens the fake platform refuses (revoked bots): webhookUrl answers null for them. */
  readonly refusedTokens = new Set<string>();
  failSends = 0;
  readonly #signed: boolean;

  constructor(options: FakeChannelOptions = {}) {
    this.id = options.id ?? 'fake';
    this.title = options.title ?? 'Fake';
    this.maxMessageLength = options.maxMessageLength ?? 100;
    this.#signed = options.signed ?? false;
    this.credentialHeaders = this.#signed ? ['x-fake-signature'] : ['x-fake-secret'];
    this.threadsAreConversations = options.threadsAreConversations ?? false;
    this.typingRefreshMs = options.typingRefreshMs;
    if (options.registers) {
      this.registration = {
        tokenProblem: (token) => (/^fake-[a-z0-9]+$/.test(token) ? undefined : 'expected the form fake-abc123'),
        setWebhook: async (token, url, secret) => {
          this.registered.push({ token, url, secret });
          if (this.failRegistration) throw new Error('platform said no');
        },
        getWebhookInfo: async (): Promise<WebhookInfo> => ({ url: this.registered.at(-1)?.url ?? '', hasCustomCertificate: false, pendingUpdateCount: 0 }),
        // Each bot has a webhook of its own; a token in `refusedTokens` is one the platform no longer knows.
        webhookUrl: async (token) => (this.refusedTokens.has(token) ? null : (this.registered.filter((r) => r.token === token).at(-1)?.url ?? '')),
      };
    }
  }

  /** The headers the fake platform sends with `body`. */
  headersFor(body: string, secret: string, now: Date): Record<string, string> {
    if (!this.#signed) return { 'x-fake-secret': secret };
    const timestamp = String(Math.floor(now.getTime() / 1000));
    return { 'x-fake-timestamp': timestamp, 'x-fake-signature': fakeSignature(secret, timestamp, body) };
  }

  checkHeaders(headers: InboundRequest['headers'], secret: string, now: Date): boolean {
    if (!this.#signed) return headers['x-fake-secret'] === secret;
    const timestamp = Number(headers['x-fake-timestamp']);
    return /^v0=/.test(headers['x-fake-signature'] ?? '') && Math.abs(now.getTime() / 1000 - timestamp) <= 300;
  }

  verify(request: InboundRequest, secret: string): boolean {
    if (!this.#signed) return true;
    const body = new TextDecoder().decode(request.rawBody);
    return request.headers['x-fake-signature'] === fakeSignature(secret, request.headers['x-fake-timestamp'] ?? '', body);
  }

  handshake(body: unknown): unknown {
    const challenge = (body as FakeDelivery | null)?.challenge;
    return typeof challenge === 'string' ? { challenge } : undefined;
  }

  parse(body: unknown): ParsedDelivery {
    const delivery = body as FakeDelivery | null;
    if (typeof delivery?.id !== 'string') throw new DomainError('invalid_input', 'Missing id');
    const m = delivery.message;
    const message: ChannelMessage | null =
      m === undefined || m.fromBot
        ? null
        : {
            threadId: m.chat,
            text: m.text,
            attachments: [],
            metadata: {
              userId: this.id,
              chatTitle: this.title,
              updateId: delivery.id,
              messageId: m.id,
              ...(m.topic !== undefined && { topicId: m.topic }),
              edited: false,
            },
          };
    return { deliveryId: delivery.id, message, ...(m?.key !== undefined && { messageKey: m.key }) };
  }

  formatReply(markdown: string): OutgoingMessage[] {
    const parts: OutgoingMessage[] = [];
    for (let i = 0; i < markdown.length; i += this.maxMessageLength) {
      const plain = markdown.slice(i, i + this.maxMessageLength);
      parts.push({ plain, formatted: `<${plain}>` });
    }
    return parts;
  }

  async sendMessage(token: string, target: ReplyTarget, message: OutgoingMessage): Promise<void> {
    if (this.failSends > 0) {
      this.failSends--;
      throw new Error('platform down');
    }
    this.sent.push({ token, target, message });
  }

  async sendTyping(_token: string, target: ReplyTarget): Promise<void> {
    this.typing.push(target);
  }

  async acknowledge(_token: string, target: ReplyTarget, messageId: string): Promise<void> {
    this.acknowledged.push({ target, messageId });
  }

  async download(_token: string, _fileId: string, _maxBytes?: number): Promise<DownloadedFile> {
    throw new Error('no files on the fake platform');
  }
}
