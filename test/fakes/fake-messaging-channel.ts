import { fileTooLarge } from '../../src/adapters/messaging/bounded-body.js';
import { splitMarkdown } from '../../src/adapters/messaging/markdown/split-markdown.js';
import { DomainError } from '../../src/domain/errors/domain-error.js';
import type { ChannelMessage } from '../../src/domain/messaging/channel-message.js';
import type {
  DownloadedFile,
  InboundRequest,
  MessagingChannel,
  OutgoingMessage,
  SendOptions,
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
  /** Where set, the platform shows "typing…"; without it, it has no indicator (sendTyping does nothing, as Slack's). */
  readonly typingRefreshMs?: number;
  readonly maxMessageLength?: number;
  /** Attempts per call, the first included, as the real adapters' setting (1 unless told: a failure is the call's failure). */
  readonly attempts?: number;
  /** Waits out a rate limit (the platform's retry-after); by default the fake does not wait. */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** The fake platform's calls that can be made to fail (failNext). */
export type FakeOperation = 'send' | 'typing' | 'acknowledge' | 'download' | 'setWebhook' | 'getWebhookInfo';
/** How the fake platform fails a call: a rate limit asking for a 1 s wait, a 500, or a refusal (400, never tried again). */
export type FakeFailure = 'rate-limit' | 'server-error' | 'refused';

/** One call the fake platform received, failed ones included. */
export interface FakeRequest {
  readonly operation: FakeOperation;
  readonly token: string;
  readonly target?: ReplyTarget;
  /** What a `send` carried: the text as sent, and whether in the platform's rich format. */
  readonly text?: string;
  readonly formatted?: boolean;
}

/** A file of the fake platform; `breaks` drops its download's connection (before the answer or in the body). */
interface FakeFile {
  readonly path: string;
  readonly data: Uint8Array;
  readonly breaks?: 'before-answer' | 'mid-body';
}

/** An answer of the fake platform that is not a success, shaped as the real adapters' (MessagingError): never the token. */
export class FakePlatformError extends Error {
  constructor(
    readonly method: string,
    readonly status: number,
    readonly description: string,
    /** How long the platform asked to wait before the call is tried again (429). */
    readonly retryAfterMs?: number,
  ) {
    super(`Fake ${method} failed (${status}): ${description}`);
    this.name = 'FakePlatformError';
  }

  /** Worth another attempt: no answer (network), a server error, or a rate limit. */
  get transient(): boolean {
    return this.status === 0 || this.status === 429 || this.status >= 500;
  }
}

const FAILURES: Record<FakeFailure, { status: number; description: string; retryAfterMs?: number }> = {
  'rate-limit': { status: 429, description: 'Too Many Requests: retry after 1', retryAfterMs: 1000 },
  'server-error': { status: 500, description: 'Internal Server Error' },
  refused: { status: 400, description: 'Bad Request: refused' },
};

/** The fake's signature of a body: `v0=<secret>:<timestamp>:<body>` (no cryptography needed to tell right from wrong). */
export const fakeSignature = (secret: string, timestamp: string, body: string): string => `v0=${secret}:${timestamp}:${body}`;

const escapeMarkup = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The fake platform's rich format, a small HTML: Markdown's fenced code as `<pre>`, inline code
 * as `<code>`, `**bold**` as `<b>`, the rest escaped. Enough for a formatted text to differ from
 * its Markdown, as every real platform's does.
 */
export const fakeMarkup = (markdown: string): string =>
  escapeMarkup(markdown)
    .replace(/```[^\n]*\n([\s\S]*?)\n?```/g, '<pre>$1</pre>')
    .replace(/`([^`\n]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*\n]+)\*\*/g, '<b>$1</b>');

/** What the platform refuses of a formatted text: markup it cannot parse (a `<` or `>` that is no tag of its format). */
const unparseable = (formatted: string): boolean => /[<>]/.test(formatted.replace(/<\/?(?:b|code|pre)>/g, ''));
/** The length of a formatted text as the platform shows (and counts) it: without its tags, each entity one character. */
const visibleLength = (formatted: string): number => formatted.replace(/<[^>]*>/g, '').replace(/&(?:lt|gt|amp);/g, '_').length;

/**
 * An in-memory MessagingChannel for use-case tests: its own small platform protocol, either
 * shape of webhook authentication, and a record of everything sent. It behaves as the real
 * adapters do where the core can tell (the MessagingChannel contract runs against it,
 * test/contract/messaging-channel.test.ts): Markdown split with the adapters' splitter and
 * formatted, a formatted text the platform refuses sent plain, a plain text over the limit
 * refused, transient failures tried again up to `attempts`, errors that never hold the token,
 * downloads that honour their size limit, and a token in `refusedTokens` refused (401) by every call.
 */
export class FakeMessagingChannel implements MessagingChannel {
  readonly id: string;
  readonly title: string;
  readonly maxMessageLength: number;
  readonly credentialHeaders: readonly string[];
  readonly threadsAreConversations: boolean;
  readonly typingRefreshMs: number | undefined;
  readonly registration?: WebhookRegistration;
  /** The messages delivered (as handed to sendMessage; a refused format went as its plain text). */
  readonly sent: Array<{ token: string; target: ReplyTarget; message: OutgoingMessage }> = [];
  /** The "typing…" indicators shown (none where the platform has no indicator). */
  readonly typing: ReplyTarget[] = [];
  readonly acknowledged: Array<{ target: ReplyTarget; messageId: string }> = [];
  /** The webhooks the platform took: each bot's last one is where its deliveries go. */
  readonly registered: Array<{ token: string; url: string; secret: string }> = [];
  /** Every call the platform received, failed ones included. */
  readonly requests: FakeRequest[] = [];
  /** The platform takes the webhook, then its answer is lost (a network error): the registration fails. */
  failRegistration = false;
  /** Tokens the fake platform refuses (revoked bots): every call answers 401, webhookUrl null. */
  readonly refusedTokens = new Set<string>();
  readonly #signed: boolean;
  readonly #attempts: number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #failures = new Map<FakeOperation, FakeFailure[]>();
  readonly #files = new Map<string, FakeFile>();

  constructor(options: FakeChannelOptions = {}) {
    this.id = options.id ?? 'fake';
    this.title = options.title ?? 'Fake';
    this.maxMessageLength = options.maxMessageLength ?? 100;
    this.#signed = options.signed ?? false;
    this.credentialHeaders = this.#signed ? ['x-fake-signature'] : ['x-fake-secret'];
    this.threadsAreConversations = options.threadsAreConversations ?? false;
    this.typingRefreshMs = options.typingRefreshMs;
    this.#attempts = options.attempts ?? 1;
    this.#sleep = options.sleep ?? (async () => undefined);
    if (options.registers) {
      this.registration = {
        tokenProblem: (token) => (/^fake-[a-z0-9]+$/.test(token) ? undefined : 'expected the form fake-abc123'),
        setWebhook: (token, url, secret) =>
          this.#call('setWebhook', { token }, () => {
            if (!url.startsWith('https://'))
              throw new FakePlatformError('setWebhook', 400, 'Bad Request: bad webhook: An HTTPS URL must be provided for webhook');
            this.registered.push({ token, url, secret });
            if (this.failRegistration) throw new FakePlatformError('setWebhook', 0, 'network error');
          }),
        getWebhookInfo: (token) =>
          this.#call(
            'getWebhookInfo',
            { token },
            (): WebhookInfo => ({
              url: this.registered.filter((r) => r.token === token).at(-1)?.url ?? '',
              hasCustomCertificate: false,
              pendingUpdateCount: 0,
            }),
          ),
        // Each bot has a webhook of its own; a token the platform refuses is one it no longer knows.
        webhookUrl: async (token) => {
          try {
            return (await this.registration!.getWebhookInfo(token)).url;
          } catch (error) {
            if (error instanceof FakePlatformError && error.status === 401) return null;
            throw error;
          }
        },
      };
    }
  }

  /** Makes the next `times` calls of `operation` fail as `failure` says (each attempt of a call takes one). */
  failNext(operation: FakeOperation, failure: FakeFailure = 'server-error', times = 1): void {
    const queued = this.#failures.get(operation) ?? [];
    this.#failures.set(operation, [...queued, ...Array<FakeFailure>(times).fill(failure)]);
  }

  /** Puts a file on the platform; returns the id to download it with. */
  addFile(path: string, data: Uint8Array, breaks?: FakeFile['breaks']): string {
    const id = `file-${this.#files.size + 1}`;
    this.#files.set(id, { path, data, ...(breaks && { breaks }) });
    return id;
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
    if (typeof delivery?.id !== 'string' || delivery.id === '') throw new DomainError('invalid_input', 'Missing id');
    const m = delivery.message;
    // As the real adapters, any delivery with an id is read: one without a readable message has none to answer.
    const readable = typeof m === 'object' && m !== null && typeof m.chat === 'string' && typeof m.id === 'string' && typeof m.text === 'string';
    const message: ChannelMessage | null =
      !readable || m.fromBot
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
    return { deliveryId: delivery.id, message, ...(readable && m.key !== undefined && { messageKey: m.key }) };
  }

  /** Split as the real adapters split (never inside a code block that fits), each part in the fake's format. */
  formatReply(markdown: string): OutgoingMessage[] {
    return splitMarkdown(markdown, this.maxMessageLength).map((plain) => ({ plain, formatted: fakeMarkup(plain) }));
  }

  async sendMessage(token: string, target: ReplyTarget, message: OutgoingMessage, options: SendOptions = {}): Promise<void> {
    const attempts = options.once ? 1 : this.#attempts;
    if (message.formatted !== undefined) {
      try {
        await this.#send(token, target, message.formatted, true, attempts);
        this.sent.push({ token, target, message });
        return;
      } catch (error) {
        // As Telegram: markup the platform cannot parse, or too long once shown, goes as plain text.
        if (!(error instanceof FakePlatformError && error.status === 400 && /parse|too long/.test(error.description))) throw error;
      }
    }
    await this.#send(token, target, message.plain, false, attempts);
    this.sent.push({ token, target, message });
  }

  async sendTyping(token: string, target: ReplyTarget, options: SendOptions = {}): Promise<void> {
    // A platform without an indicator is not called (Slack shows bots none).
    if (this.typingRefreshMs === undefined) return;
    await this.#call('typing', { token, target }, () => void this.typing.push(target), options.once ? 1 : this.#attempts);
  }

  async acknowledge(token: string, target: ReplyTarget, messageId: string): Promise<void> {
    await this.#call('acknowledge', { token, target }, () => void this.acknowledged.push({ target, messageId }));
  }

  async download(token: string, fileId: string, maxBytes = Number.POSITIVE_INFINITY): Promise<DownloadedFile> {
    return this.#call('download', { token }, () => {
      const file = this.#files.get(fileId);
      if (file === undefined) throw new FakePlatformError('download', 400, 'Bad Request: invalid file_id');
      // The platform tells the size first, as Telegram's getFile: a file over the limit is never fetched.
      if (file.data.byteLength > maxBytes) throw fileTooLarge(maxBytes, file.data.byteLength);
      if (file.breaks !== undefined) throw new FakePlatformError('download', 0, 'network error');
      return { data: file.data, path: file.path };
    });
  }

  #send(token: string, target: ReplyTarget, text: string, formatted: boolean, attempts: number): Promise<void> {
    return this.#call(
      'send',
      { token, target, text, formatted },
      () => {
        if (formatted && unparseable(text)) throw new FakePlatformError('sendMessage', 400, "Bad Request: can't parse entities");
        if ((formatted ? visibleLength(text) : text.length) > this.maxMessageLength)
          throw new FakePlatformError('sendMessage', 400, 'Bad Request: message is too long');
        if (text.trim() === '') throw new FakePlatformError('sendMessage', 400, 'Bad Request: message text is empty');
      },
      attempts,
    );
  }

  /**
   * One call of the platform, tried again as the real adapters do: after a network error, a
   * server error or a rate limit (waiting as long as the platform asked), up to `attempts`.
   */
  async #call<T>(operation: FakeOperation, request: Omit<FakeRequest, 'operation'>, answer: () => T, attempts = this.#attempts): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        this.requests.push({ operation, ...request });
        const failure = this.#failures.get(operation)?.shift();
        if (failure !== undefined) {
          const { status, description, retryAfterMs } = FAILURES[failure];
          throw new FakePlatformError(operation, status, description, retryAfterMs);
        }
        if (this.refusedTokens.has(request.token)) throw new FakePlatformError(operation, 401, 'Unauthorized');
        return answer();
      } catch (error) {
        if (!(error instanceof FakePlatformError && error.transient) || attempt >= attempts) throw error;
        if (error.retryAfterMs !== undefined) await this.#sleep(error.retryAfterMs);
      }
    }
  }
}
