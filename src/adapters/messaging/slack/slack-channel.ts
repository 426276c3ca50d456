import fetch from 'node-fetch';
import pRetry from 'p-retry';
import { DomainError } from '../../../domain/errors/domain-error.js';
import type { DownloadedFile, InboundRequest, MessagingChannel, OutgoingMessage, ParsedDelivery, ReplyTarget } from '../../../ports/messaging-channel.js';
import { splitMarkdown } from '../markdown/split-markdown.js';
import { challengeOf, eventIdOf, parseEvent } from './parse-event.js';
import { SLACK } from './slack.js';
import { escapeSlack, markdownToMrkdwn } from './slack-mrkdwn.js';
import { signatureHeadersPass, signatureMatches } from './slack-signature.js';

/** How a Web API failure is to be taken. */
export type SlackFailureKind = 'network' | 'rate-limited' | 'unavailable' | 'unauthorized' | 'refused';

/** Web API `error` codes that mean the token is not (or no longer) good. */
const AUTH_ERRORS = new Set([
  'not_authed',
  'invalid_auth',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'no_permission',
  'missing_scope',
  'org_login_required',
  'ekm_access_denied',
]);
/** Web API `error` codes of a passing trouble on Slack's side: worth another attempt. */
const UNAVAILABLE_ERRORS = new Set(['internal_error', 'fatal_error', 'service_unavailable', 'request_timeout']);

/** What an answer that is not `ok` means: the HTTP status and Slack's `error` code, classified. */
export const classifySlackFailure = (status: number, error: string): SlackFailureKind => {
  if (status === 0) return 'network';
  if (status === 429 || error === 'ratelimited' || error === 'rate_limited') return 'rate-limited';
  if (status >= 500 || UNAVAILABLE_ERRORS.has(error)) return 'unavailable';
  if (status === 401 || status === 403 || AUTH_ERRORS.has(error)) return 'unauthorized';
  return 'refused';
};

const DESCRIPTIONS: Record<SlackFailureKind, string> = {
  network: 'no answer',
  'rate-limited': 'rate limited',
  unavailable: 'server error, Slack is unavailable',
  unauthorized: 'Unauthorized: the bot token is not valid or lacks a scope',
  refused: 'refused',
};

/** A Web API answer that is not `ok`, classified. The message never contains the token. */
export class SlackApiError extends Error {
  readonly kind: SlackFailureKind;

  constructor(
    readonly method: string,
    readonly status: number,
    /** Slack's `error` code (`channel_not_found`, `invalid_auth`, …), or what went wrong before an answer. */
    readonly error: string,
    /** How long Slack asked to wait before the call is tried again (429 `Retry-After`). */
    readonly retryAfterMs?: number,
  ) {
    const kind = classifySlackFailure(status, error);
    super(`Slack ${method} failed (${status}): ${error} (${DESCRIPTIONS[kind]})`);
    this.name = 'SlackApiError';
    this.kind = kind;
  }

  /** Worth another attempt: no answer (network, timeout), a server error, or a rate limit. */
  get transient(): boolean {
    return this.kind === 'network' || this.kind === 'rate-limited' || this.kind === 'unavailable';
  }
}

interface WebApiAnswer {
  ok?: boolean;
  error?: string;
  [field: string]: unknown;
}

export interface SlackSettings {
  /** `https://slack.com/api`, or a fake in tests. */
  readonly apiUrl: string;
  /** Attempts per call, the first included: network errors, timeouts, 5xx and 429 are tried again. */
  readonly attempts: number;
  /** Delay before the second attempt; doubled for each further one (0 in tests: no wait). */
  readonly backoffMs: number;
  /** Upper bound of one Retry-After wait. */
  readonly maxRetryAfterMs: number;
  readonly timeoutMs: number;
  /** Waits out a rate limit (Retry-After); a fake in tests, so that they need not wait. */
  readonly sleep?: (ms: number) => Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The acknowledgement: the 👀 reaction, by its Slack name. */
const ACKNOWLEDGEMENT = 'eyes';
/**
 * The longest text of one message. Slack truncates at 40 000 characters and advises keeping a
 * message under 4 000; a little under that leaves room for the escapes mrkdwn adds.
 */
const MAX_MESSAGE_LENGTH = 3500;
/** Where Slack serves files (`url_private_download`) besides the API's own origin. */
const FILES_ORIGIN = 'https://files.slack.com';

/**
 * The Slack channel: the Events API (requests signed with the app's signing secret,
 * `url_verification` handshakes, `event_callback`s identified by `event_id`) and the Web API
 * (`POST {apiUrl}/<method>` with the bot token as a Bearer token and JSON bodies; every
 * answer `{ok, …}`, rate limits as 429 with `Retry-After`). Replies go in the message's thread
 * as mrkdwn, 3 500 characters a message; the acknowledgement is the 👀 reaction; Slack shows
 * bots no "typing…".
 */
export class SlackChannel implements MessagingChannel {
  readonly id = SLACK.id;
  readonly title = SLACK.title;
  readonly maxMessageLength = MAX_MESSAGE_LENGTH;
  readonly credentialHeaders = SLACK.credentialHeaders;
  /** Every reply goes in a thread: each thread is a conversation of its own. */
  readonly threadsAreConversations = true;
  readonly typingRefreshMs = undefined;

  constructor(private readonly settings: SlackSettings) {}

  checkHeaders(headers: InboundRequest['headers'], _secret: string, now: Date): boolean {
    return signatureHeadersPass(headers, now);
  }

  verify(request: InboundRequest, secret: string, now: Date): boolean {
    return signatureMatches(request.headers, request.rawBody, secret, now);
  }

  /**
   * `url_verification` → `{challenge}`. Slack's notice that it stopped sending events for a
   * while (`app_rate_limited`, which has no `event_id`) needs only its 2xx: `{ok: true}`.
   */
  handshake(body: unknown): unknown {
    const challenge = challengeOf(body);
    if (challenge !== undefined) return { challenge };
    return typeof body === 'object' && body !== null && (body as Record<string, unknown>).type === 'app_rate_limited' ? { ok: true } : undefined;
  }

  parse(body: unknown): ParsedDelivery {
    const eventId = eventIdOf(body);
    if (eventId === undefined) throw new DomainError('invalid_input', 'Missing event_id');
    const parsed = parseEvent(body, { userId: this.id, chatTitle: this.title });
    return parsed === null ? { deliveryId: eventId, message: null } : { deliveryId: eventId, message: parsed.message, messageKey: parsed.key };
  }

  formatReply(markdown: string): OutgoingMessage[] {
    return this.#format(markdown, this.maxMessageLength);
  }

  /**
   * Split at `limit` on marked's blocks; a part whose mrkdwn came out longer than the limit
   * (escapes lengthen `&`, `<`, `>`) is split again, smaller.
   */
  #format(markdown: string, limit: number): OutgoingMessage[] {
    return splitMarkdown(markdown, limit).flatMap((part) => {
      const formatted = markdownToMrkdwn(part);
      if (formatted.length <= this.maxMessageLength) return [{ plain: part, formatted }];
      const smaller = Math.max(2, Math.floor((part.length * this.maxMessageLength) / formatted.length) - 16);
      if (smaller >= part.length) return [{ plain: part, formatted: formatted.slice(0, this.maxMessageLength) }];
      return this.#format(part, smaller);
    });
  }

  async sendMessage(token: string, target: ReplyTarget, message: OutgoingMessage): Promise<void> {
    const base = { channel: target.chatId, ...(target.topicId !== undefined && { thread_ts: target.topicId }), unfurl_links: false, unfurl_media: false };
    // Slack takes any mrkdwn; plain text is sent escaped with formatting off.
    const body =
      message.formatted !== undefined ? { ...base, text: message.formatted, mrkdwn: true } : { ...base, text: escapeSlack(message.plain), mrkdwn: false };
    await this.#call(token, 'chat.postMessage', body);
  }

  /** Slack shows bots no "typing…" (outside its AI-app assistant threads): nothing to send. */
  async sendTyping(): Promise<void> {}

  async acknowledge(token: string, target: ReplyTarget, messageId: string): Promise<void> {
    try {
      await this.#call(token, 'reactions.add', { channel: target.chatId, timestamp: messageId, name: ACKNOWLEDGEMENT });
    } catch (error) {
      // Acknowledged already (a message answered again after a restart): done.
      if (!(error instanceof SlackApiError && error.error === 'already_reacted')) throw error;
    }
  }

  /** `files.info` (scope `files:read`) for the file's private download address, then the file, with the token. */
  async download(token: string, fileId: string): Promise<DownloadedFile> {
    const answer = await this.#call(token, 'files.info', { file: fileId });
    const file = answer.file as { url_private_download?: unknown; url_private?: unknown; name?: unknown } | undefined;
    const address = typeof file?.url_private_download === 'string' ? file.url_private_download : file?.url_private;
    if (typeof address !== 'string' || !this.#isFileAddress(address)) throw new SlackApiError('files.info', 200, 'no_download_url');
    let response: Awaited<ReturnType<typeof fetch>>;
    try {
      // The token goes only to Slack's own file host (or the configured API's origin, a fake in tests).
      response = await fetch(address, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(this.settings.timeoutMs) });
    } catch {
      throw new SlackApiError('download', 0, 'network_error');
    }
    if (!response.ok) throw new SlackApiError('download', response.status, response.statusText || 'download_failed');
    return { data: new Uint8Array(await response.arrayBuffer()), path: typeof file?.name === 'string' ? file.name : fileId };
  }

  #isFileAddress(address: string): boolean {
    if (!URL.canParse(address)) return false;
    const origin = new URL(address).origin;
    return origin === FILES_ORIGIN || origin === new URL(this.settings.apiUrl).origin;
  }

  /**
   * One Web API call, tried again (p-retry, exponential backoff) after a network error, a
   * timeout, a server error or a rate limit — after a 429 also waiting as long as Slack asked.
   */
  #call(token: string, method: string, body: object): Promise<WebApiAnswer> {
    const wait = this.settings.sleep ?? sleep;
    return pRetry(() => this.#attempt(token, method, body), {
      retries: this.settings.attempts - 1,
      minTimeout: this.settings.backoffMs,
      factor: 2,
      shouldRetry: ({ error }) => error instanceof SlackApiError && error.transient,
      onFailedAttempt: async ({ error, retriesLeft }) => {
        if (retriesLeft > 0 && error instanceof SlackApiError && error.retryAfterMs !== undefined) {
          await wait(Math.min(error.retryAfterMs, this.settings.maxRetryAfterMs));
        }
      },
    });
  }

  async #attempt(token: string, method: string, body: object): Promise<WebApiAnswer> {
    let answer: WebApiAnswer;
    let status: number;
    let retryAfter: string | null;
    try {
      const response = await fetch(`${this.settings.apiUrl}/${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8', authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
      status = response.status;
      retryAfter = response.headers.get('retry-after');
      answer = (await response.json().catch(() => ({ ok: false, error: response.statusText || 'no_json' }))) as WebApiAnswer;
    } catch (error) {
      const name = (error as Error).name;
      throw new SlackApiError(method, 0, name === 'TimeoutError' || name === 'AbortError' ? 'timed_out' : 'network_error');
    }
    if (status === 200 && answer.ok === true) return answer;
    const seconds = retryAfter !== null && /^\d{1,6}$/.test(retryAfter.trim()) ? Number(retryAfter.trim()) : undefined;
    const code = typeof answer.error === 'string' && answer.error !== '' ? answer.error.slice(0, 100) : 'unknown_error';
    throw new SlackApiError(method, status, code, seconds === undefined ? (status === 429 ? 1000 : undefined) : seconds * 1000);
  }
}
