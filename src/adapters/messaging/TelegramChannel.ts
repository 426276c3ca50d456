import fetch from 'node-fetch';
import pRetry from 'p-retry';
import type { DownloadedFile, MessagingChannel, OutgoingMessage, ReplyTarget, WebhookInfo } from '../../ports/MessagingChannel.js';
import { splitMarkdown } from './markdown/splitMarkdown.js';
import { markdownToTelegramHtml } from './telegram/telegramHtml.js';

/** A Bot API answer that is not `ok`. The message never contains the token. */
export class MessagingError extends Error {
  constructor(
    readonly method: string,
    readonly status: number,
    readonly description: string,
    /** How long the platform asked to wait before the call is tried again (429). */
    readonly retryAfterMs?: number,
  ) {
    super(`Telegram ${method} failed (${status}): ${description}`);
    this.name = 'MessagingError';
  }

  /** Worth another attempt: no answer (network, timeout), a server error, or a rate limit. */
  get transient(): boolean {
    return this.status === 0 || this.status === 429 || this.status >= 500;
  }
}

interface BotAnswer<T> {
  ok: boolean;
  result?: T;
  error_code?: number;
  description?: string;
  parameters?: { retry_after?: number };
}

export interface TelegramSettings {
  /** `https://api.telegram.org`, or a fake in tests. */
  readonly apiUrl: string;
  /** Attempts per call, the first included: network errors, timeouts, 5xx and 429 are tried again. */
  readonly attempts: number;
  /** Delay before the second attempt; doubled for each further one (0 in tests: no wait). */
  readonly backoffMs: number;
  /** Upper bound of one retry_after wait. */
  readonly maxRetryAfterMs: number;
  readonly timeoutMs: number;
  /** Waits out a rate limit (retry_after); a fake in tests, so that they need not wait. */
  readonly sleep?: (ms: number) => Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The Telegram Bot API (`POST {apiUrl}/bot<token>/<method>` with JSON bodies). */
export class TelegramChannel implements MessagingChannel {
  readonly id = 'telegram';
  readonly title = 'Telegram';
  readonly maxMessageLength = 4096;

  constructor(private readonly settings: TelegramSettings) {}

  formatReply(markdown: string): OutgoingMessage[] {
    // Telegram counts its limit on the visible text, which the conversion never lengthens.
    return splitMarkdown(markdown, this.maxMessageLength).map((part) => ({ plain: part, formatted: markdownToTelegramHtml(part) }));
  }

  async setWebhook(token: string, url: string, secret: string): Promise<void> {
    await this.#call<boolean>(token, 'setWebhook', { url, secret_token: secret, allowed_updates: ['message', 'edited_message', 'channel_post', 'edited_channel_post'] });
  }

  async getWebhookInfo(token: string): Promise<WebhookInfo> {
    const info = await this.#call<Record<string, unknown>>(token, 'getWebhookInfo', {});
    return {
      url: String(info.url ?? ''),
      hasCustomCertificate: Boolean(info.has_custom_certificate),
      pendingUpdateCount: Number(info.pending_update_count ?? 0),
      ...(typeof info.last_error_date === 'number' ? { lastErrorDate: info.last_error_date } : {}),
      ...(typeof info.last_error_message === 'string' ? { lastErrorMessage: info.last_error_message } : {}),
    };
  }

  async sendMessage(token: string, target: ReplyTarget, message: OutgoingMessage): Promise<void> {
    const base = { chat_id: target.chatId, ...(target.topicId !== undefined ? { message_thread_id: target.topicId } : {}), link_preview_options: { is_disabled: true } };
    if (message.formatted !== undefined) {
      try {
        await this.#call(token, 'sendMessage', { ...base, text: message.formatted, parse_mode: 'HTML' });
        return;
      } catch (error) {
        // Telegram refuses markup it cannot parse; the same text then goes as plain text.
        if (!(error instanceof MessagingError && error.status === 400 && /parse entities|can't parse/i.test(error.description))) throw error;
      }
    }
    await this.#call(token, 'sendMessage', { ...base, text: message.plain });
  }

  async sendTyping(token: string, target: ReplyTarget): Promise<void> {
    await this.#call(token, 'sendChatAction', { chat_id: target.chatId, action: 'typing', ...(target.topicId !== undefined ? { message_thread_id: target.topicId } : {}) });
  }

  async react(token: string, chatId: string, messageId: number, emoji: string): Promise<void> {
    await this.#call(token, 'setMessageReaction', { chat_id: chatId, message_id: messageId, reaction: [{ type: 'emoji', emoji }] });
  }

  async download(token: string, fileId: string): Promise<DownloadedFile> {
    const file = await this.#call<{ file_path?: string }>(token, 'getFile', { file_id: fileId });
    if (!file.file_path) throw new MessagingError('getFile', 200, 'no file_path (file too large to download?)');
    const response = await fetch(`${this.settings.apiUrl}/file/bot${token}/${file.file_path}`, { signal: AbortSignal.timeout(this.settings.timeoutMs) });
    if (!response.ok) throw new MessagingError('download', response.status, response.statusText);
    return { data: new Uint8Array(await response.arrayBuffer()), path: file.file_path };
  }

  /**
   * One Bot API call, tried again (p-retry, exponential backoff) after a network error, a
   * timeout, a 5xx or a 429 — after a 429 also waiting as long as the platform asked.
   */
  #call<T>(token: string, method: string, body: object): Promise<T> {
    const wait = this.settings.sleep ?? sleep;
    return pRetry(() => this.#attempt<T>(token, method, body), {
      retries: this.settings.attempts - 1,
      minTimeout: this.settings.backoffMs,
      factor: 2,
      shouldRetry: ({ error }) => error instanceof MessagingError && error.transient,
      onFailedAttempt: async ({ error, retriesLeft }) => {
        if (retriesLeft > 0 && error instanceof MessagingError && error.retryAfterMs !== undefined) {
          await wait(Math.min(error.retryAfterMs, this.settings.maxRetryAfterMs));
        }
      },
    });
  }

  async #attempt<T>(token: string, method: string, body: object): Promise<T> {
    let answer: BotAnswer<T>;
    let status: number;
    try {
      const response = await fetch(`${this.settings.apiUrl}/bot${token}/${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
      status = response.status;
      answer = (await response.json().catch(() => ({ ok: false, description: response.statusText }))) as BotAnswer<T>;
    } catch (error) {
      // Network errors name the URL, which holds the token: never pass them on as they are.
      throw new MessagingError(method, 0, (error as Error).name === 'TimeoutError' || (error as Error).name === 'AbortError' ? 'timed out' : 'network error');
    }
    if (answer.ok) return answer.result as T;
    const retryAfter = answer.parameters?.retry_after;
    throw new MessagingError(method, answer.error_code ?? status, answer.description ?? 'unknown error', retryAfter === undefined ? undefined : retryAfter * 1000);
  }
}
