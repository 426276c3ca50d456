import { createHash, timingSafeEqual } from 'node:crypto';
import fetch from 'node-fetch';
import pRetry from 'p-retry';
import { DomainError, isDomainError } from '../../../domain/errors/domain-error.js';
import { fileTooLarge, readAtMost } from '../bounded-body.js';
import { headOf } from '../../../domain/text/cut-text.js';
import type {
  ChatText,
  ChoiceButton,
  ChoiceButtons,
  ChoiceMade,
  DeliveryPolling,
  DownloadedFile,
  PolledDelivery,
  InboundRequest,
  MessagingChannel,
  OutgoingMessage,
  SendOptions,
  ParsedDelivery,
  ReplyTarget,
  WebhookInfo,
  WebhookRegistration,
} from '../../../ports/messaging-channel.js';
import { splitMarkdown } from '../markdown/split-markdown.js';
import { albumOf, normalizeUpdate, updateIdOf } from './normalize-update.js';
import { TELEGRAM } from './telegram.js';
import { telegramEntities } from './telegram-entities.js';
import { markdownToTelegramHtml } from './telegram-html.js';

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

const SECRET_HEADER = TELEGRAM.credentialHeaders[0];

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

/** A bot token as Telegram issues them: the bot's number, a colon, then letters, digits, `_` and `-`. */
const TOKEN_SHAPE = /^[0-9]{1,20}:[A-Za-z0-9_-]{1,200}$/;
/** The acknowledgement: one of the reactions a bot may set (✅ is not). */
const ACKNOWLEDGEMENT = '👀';

/** The updates the gateway asks for, by webhook or by polling. */
/** The smallest part a reply is cut to for its HTML to fit; a part that would need less goes plain. */
const MIN_FORMATTED_PART = 512;

/** The length of an HTML message's text as Telegram shows (and counts) it: without its tags, each entity one character. */
const visibleLength = (html: string): number => html.replace(/<[^>]*>/g, '').replace(/&(?:lt|gt|amp|quot);/g, '_').length;
/** Whether an HTML message shows no text at all (`<pre></pre>`, `<blockquote></blockquote>`, white space): Telegram refuses it as empty. */
const showsNothing = (html: string): boolean => html.replace(/<[^>]*>/g, '').trim() === '';

const ALLOWED_UPDATES = ['message', 'edited_message', 'channel_post', 'edited_channel_post', 'callback_query'];
/** How much longer than the long poll's own wait a getUpdates call may take before it counts as timed out. */
const POLL_GRACE_MS = 15_000;

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();
/** Constant-time equality whatever the lengths (both sides hashed first). */
const sameSecret = (given: string | undefined, secret: string): boolean => given !== undefined && timingSafeEqual(digest(given), digest(secret));

/** Telegram numbers its messages and topics: a number of ours is one of its. */
const telegramNumber = (id: string): number => {
  const number = Number(id);
  if (!/^-?\d+$/.test(id) || !Number.isSafeInteger(number)) throw new MessagingError('id', 400, `not a Telegram id: ${JSON.stringify(id.slice(0, 40))}`);
  return number;
};
const topic = (target: ReplyTarget): { message_thread_id?: number } =>
  target.topicId !== undefined ? { message_thread_id: telegramNumber(target.topicId) } : {};

/**
 * The Telegram channel: the Bot API (`POST {apiUrl}/bot<token>/<method>` with JSON bodies) and
 * its webhook — the secret in `X-Telegram-Bot-Api-Secret-Token`, Updates identified by
 * `update_id`, HTML formatting, 4096 characters a message, "typing…" for about 5 s.
 */
export class TelegramChannel implements MessagingChannel, WebhookRegistration, DeliveryPolling {
  readonly id = TELEGRAM.id;
  readonly title = TELEGRAM.title;
  readonly maxMessageLength = 4096;
  readonly credentialHeaders = TELEGRAM.credentialHeaders;
  readonly threadsAreConversations = false;
  readonly typingRefreshMs = 4000;
  readonly registration: WebhookRegistration = this;
  readonly polling: DeliveryPolling = this;
  readonly buttons: ChoiceButtons = this;

  constructor(private readonly settings: TelegramSettings) {}

  /** The bot's username by token, as getMe told it (a failed look-up is not kept). */
  readonly #botNames = new Map<string, string>();

  /** `getMe`'s username, asked once per token (one attempt); undefined when it cannot be told. */
  async botName(token: string): Promise<string | undefined> {
    const known = this.#botNames.get(token);
    if (known !== undefined) return known;
    try {
      const me = await this.#call<{ username?: unknown }>(token, 'getMe', {}, undefined, 1);
      if (typeof me?.username !== 'string' || me.username === '') return undefined;
      this.#botNames.set(token, me.username);
      return me.username;
    } catch {
      return undefined;
    }
  }

  checkHeaders(headers: InboundRequest['headers'], secret: string): boolean {
    return sameSecret(headers[SECRET_HEADER], secret);
  }

  verify(request: InboundRequest, secret: string): boolean {
    return this.checkHeaders(request.headers, secret);
  }

  handshake(): undefined {
    return undefined;
  }

  parse(body: unknown): ParsedDelivery {
    const updateId = updateIdOf(body);
    if (updateId === undefined) {
      const given = typeof body === 'object' && body !== null && !Array.isArray(body) && Object.hasOwn(body, 'update_id');
      throw new DomainError('invalid_input', given ? 'Invalid update_id: a whole number of 0 or more is expected' : 'Missing update_id');
    }
    const choice = choiceOf(body);
    if (choice !== undefined) return { deliveryId: String(updateId), message: null, choice };
    const message = normalizeUpdate(body, { userId: this.id, chatTitle: this.title });
    // An edit is not answered again: the message was answered as first sent, and answering the
    // new text would reply twice (and could start a second job). Triggers still see the edit.
    if (message?.metadata.edited === true) return { deliveryId: String(updateId), message: null };
    // An album comes as one message per photo or file: each is stored (its `albumId`), and the
    // album is answered once (one key for all its messages), with every message's text and file.
    const album = albumOf(body);
    return { deliveryId: String(updateId), message, ...(album !== undefined && { messageKey: `album:${album}` }) };
  }

  /**
   * The text goes without parse_mode, its verbatim parts marked by `entities` (telegramEntities):
   * data never passes through a markup to be escaped, and Telegram detects no link, mention,
   * command, hashtag, address or number inside a code entity. No link preview.
   */
  async ask(token: string, target: ReplyTarget, text: ChatText, buttons: readonly ChoiceButton[]): Promise<void> {
    const { shown, entities } = telegramEntities(text, this.maxMessageLength);
    await this.#call(token, 'sendMessage', {
      chat_id: target.chatId,
      ...topic(target),
      text: shown,
      ...(entities.length > 0 && { entities }),
      link_preview_options: { is_disabled: true },
      ...(buttons.length > 0 && { reply_markup: { inline_keyboard: [buttons.map((button) => ({ text: button.label, callback_data: button.data }))] } }),
    });
  }

  async settle(token: string, choice: ChoiceMade, outcome: string): Promise<void> {
    // The press first (Telegram shows a spinner until it is answered), then the buttons go, then
    // the outcome is said. Telegram refuses (400) to answer a press fetched late — it forgets a
    // press within seconds — and to take off buttons already gone (a second press): neither
    // keeps the outcome from being said.
    const refusedOnly = (error: unknown): void => {
      if (!(error instanceof MessagingError && error.status === 400)) throw error;
    };
    if (choice.pressId !== undefined)
      // At most 200 characters, never half of a surrogate pair (an emoji of a trigger's name at the
      // cut): Telegram refuses text that is not UTF-8 with a 400, and the press went unanswered.
      await this.#call(token, 'answerCallbackQuery', { callback_query_id: choice.pressId, text: headOf(outcome, 200) }).catch(refusedOnly);
    const message = { chat_id: choice.chatId, message_id: telegramNumber(choice.messageId) };
    await this.#call(token, 'editMessageReplyMarkup', { ...message, reply_markup: { inline_keyboard: [] } }).catch(refusedOnly);
    await this.#call(token, 'sendMessage', {
      chat_id: choice.chatId,
      text: headOf(outcome, this.maxMessageLength),
      reply_parameters: { message_id: message.message_id },
    });
  }

  formatReply(markdown: string): OutgoingMessage[] {
    return this.#fitting(markdown, this.maxMessageLength);
  }

  /**
   * Parts of at most `limit` characters of Markdown whose HTML shows at most maxMessageLength
   * (Telegram counts its limit on the visible text). The conversion can lengthen it: a list
   * item's lazy continuation lines are indented under the item. Such a part is cut smaller.
   */
  #fitting(markdown: string, limit: number): OutgoingMessage[] {
    return splitMarkdown(markdown, limit).flatMap((part): OutgoingMessage[] => {
      const formatted = markdownToTelegramHtml(part);
      // Markdown whose HTML shows nothing (an empty code block, a bare `>`): Telegram would refuse
      // it ("message text is empty"), so it goes as its plain text, which shows the characters.
      if (showsNothing(formatted)) return [{ plain: part }];
      const over = visibleLength(formatted) - this.maxMessageLength;
      if (over <= 0) return [{ plain: part, formatted }];
      // A part that would have to be cut very small (its HTML several times its length: deep
      // lists) goes as plain text, which never exceeds the limit.
      const smaller = part.length - over;
      return smaller >= MIN_FORMATTED_PART ? this.#fitting(part, smaller) : [{ plain: part }];
    });
  }

  tokenProblem(token: string): string | undefined {
    return TOKEN_SHAPE.test(token) ? undefined : 'expected the form 123456:ABC-DEF1234ghIkl';
  }

  async setWebhook(token: string, url: string, secret: string): Promise<void> {
    await this.#call<boolean>(token, 'setWebhook', {
      url,
      secret_token: secret,
      allowed_updates: ALLOWED_UPDATES,
    });
  }

  async stopWebhook(token: string, signal?: AbortSignal): Promise<void> {
    // Pending updates are kept: polling picks them up.
    await this.#call<boolean>(token, 'deleteWebhook', { drop_pending_updates: false }, signal);
  }

  /** `getUpdates` (long polling): `offset` confirms every update before it; the next cursor is update_id + 1. */
  async poll(token: string, cursor: string | undefined, waitSeconds: number, signal: AbortSignal): Promise<PolledDelivery[]> {
    const updates = await this.#attempt<unknown[]>(
      token,
      'getUpdates',
      { ...(cursor !== undefined && { offset: Number(cursor) }), timeout: waitSeconds, allowed_updates: ALLOWED_UPDATES },
      { timeoutMs: waitSeconds * 1000 + POLL_GRACE_MS, signal },
    );
    if (!Array.isArray(updates)) throw new MessagingError('getUpdates', 200, 'the result is not a list of updates');
    return updates.flatMap((update) => {
      const id = updateIdOf(update);
      return id === undefined ? [] : [{ body: update, next: String(id + 1) }];
    });
  }

  async webhookUrl(token: string): Promise<string | null> {
    try {
      return (await this.getWebhookInfo(token)).url;
    } catch (error) {
      // 401 Unauthorized: a revoked token; 404 Not Found: no bot has this token.
      if (error instanceof MessagingError && (error.status === 401 || error.status === 404)) return null;
      throw error;
    }
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

  async sendMessage(token: string, target: ReplyTarget, message: OutgoingMessage, options: SendOptions = {}): Promise<void> {
    const base = { chat_id: target.chatId, ...topic(target), link_preview_options: { is_disabled: true } };
    const attempts = options.once ? 1 : this.settings.attempts;
    if (message.formatted !== undefined) {
      try {
        await this.#call(token, 'sendMessage', { ...base, text: message.formatted, parse_mode: 'HTML' }, undefined, attempts);
        return;
      } catch (error) {
        // Telegram refuses markup it cannot parse, or whose text comes out too long or empty
        // ("message text is empty": markup that shows nothing); the same text then goes as plain
        // text (never longer than the limit: formatReply cut it so).
        if (!(error instanceof MessagingError && error.status === 400 && /parse entities|can't parse|too long|text is empty/i.test(error.description)))
          throw error;
      }
    }
    await this.#call(token, 'sendMessage', { ...base, text: message.plain }, undefined, attempts);
  }

  async sendTyping(token: string, target: ReplyTarget, options: SendOptions = {}): Promise<void> {
    const attempts = options.once ? 1 : this.settings.attempts;
    await this.#call(token, 'sendChatAction', { chat_id: target.chatId, action: 'typing', ...topic(target) }, undefined, attempts);
  }

  async acknowledge(token: string, target: ReplyTarget, messageId: string): Promise<void> {
    await this.#call(token, 'setMessageReaction', {
      chat_id: target.chatId,
      message_id: telegramNumber(messageId),
      reaction: [{ type: 'emoji', emoji: ACKNOWLEDGEMENT }],
    });
  }

  async download(token: string, fileId: string, maxBytes = Number.POSITIVE_INFINITY): Promise<DownloadedFile> {
    const tooLarge = (size: number | undefined) => fileTooLarge(maxBytes, size);
    let file: { file_path?: string; file_size?: number };
    try {
      file = await this.#call<{ file_path?: string; file_size?: number }>(token, 'getFile', { file_id: fileId });
    } catch (error) {
      // Telegram lets bots download files of up to 20 MB: larger ones are refused here.
      if (error instanceof MessagingError && error.status === 400 && /too big/i.test(error.description)) throw tooLarge(undefined);
      throw error;
    }
    if (typeof file.file_size === 'number' && file.file_size > maxBytes) throw tooLarge(file.file_size);
    if (!file.file_path) throw new MessagingError('getFile', 200, 'no file_path (file too large to download?)');
    const data = await this.#downloadFile(token, file.file_path, maxBytes);
    return { data, path: file.file_path };
  }

  /** The file's bytes, at most `maxBytes`. Network errors name the URL, which holds the token: they never leave as they are. */
  async #downloadFile(token: string, path: string, maxBytes: number): Promise<Uint8Array> {
    const failed = (error: unknown) =>
      new MessagingError('download', 0, (error as Error).name === 'TimeoutError' || (error as Error).name === 'AbortError' ? 'timed out' : 'network error');
    let response: Awaited<ReturnType<typeof fetch>>;
    try {
      response = await fetch(`${this.settings.apiUrl}/file/bot${token}/${path}`, { signal: AbortSignal.timeout(this.settings.timeoutMs) });
    } catch (error) {
      throw failed(error);
    }
    if (!response.ok) throw new MessagingError('download', response.status, response.statusText);
    try {
      return await readAtMost(response.body, response.headers.get('content-length'), maxBytes);
    } catch (error) {
      if (isDomainError(error)) throw error;
      throw failed(error);
    }
  }

  /**
   * One Bot API call, tried again (p-retry, exponential backoff) after a network error, a
   * timeout, a 5xx or a 429 — after a 429 also waiting as long as the platform asked — up to
   * `attempts` in all (the setting's, unless told).
   */
  #call<T>(token: string, method: string, body: object, signal?: AbortSignal, attempts = this.settings.attempts): Promise<T> {
    const wait = this.settings.sleep ?? sleep;
    return pRetry(() => this.#attempt<T>(token, method, body, { timeoutMs: this.settings.timeoutMs, signal }), {
      retries: attempts - 1,
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

  async #attempt<T>(token: string, method: string, body: object, options: { timeoutMs: number; signal?: AbortSignal }): Promise<T> {
    let answer: BotAnswer<T>;
    let status: number;
    try {
      const response = await fetch(`${this.settings.apiUrl}/bot${token}/${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.any([AbortSignal.timeout(options.timeoutMs), ...(options.signal ? [options.signal] : [])]),
      });
      status = response.status;
      answer = (await response.json().catch(() => ({ ok: false, description: response.statusText }))) as BotAnswer<T>;
    } catch (error) {
      // Stopped by the caller: not a platform failure.
      if (options.signal?.aborted) throw options.signal.reason;
      // Network errors name the URL, which holds the token: never pass them on as they are.
      throw new MessagingError(method, 0, (error as Error).name === 'TimeoutError' || (error as Error).name === 'AbortError' ? 'timed out' : 'network error');
    }
    if (answer.ok) return answer.result as T;
    const retryAfter = answer.parameters?.retry_after;
    throw new MessagingError(
      method,
      answer.error_code ?? status,
      answer.description ?? 'unknown error',
      retryAfter === undefined ? undefined : retryAfter * 1000,
    );
  }
}

/** The `callback_data` of every button of a message's inline keyboard (`reply_markup`), as Telegram hands the message back. */
const keyboardData = (markup: unknown): string[] => {
  const rows = typeof markup === 'object' && markup !== null ? (markup as { inline_keyboard?: unknown }).inline_keyboard : undefined;
  if (!Array.isArray(rows)) return [];
  return rows.flatMap((row: unknown) =>
    Array.isArray(row)
      ? row.flatMap((button: unknown) => {
          const data = typeof button === 'object' && button !== null ? (button as { callback_data?: unknown }).callback_data : undefined;
          return typeof data === 'string' ? [data] : [];
        })
      : [],
  );
};

/**
 * A press of an inline keyboard button (`callback_query` with its data and message), or undefined.
 * Telegram passes on the data a client sends, and a modified client can send any data for any
 * message of the bot it sees ("a bad client can send arbitrary data in this field"): a press
 * counts only when its message's keyboard, which Telegram hands back with the message, has a
 * button with that data. Otherwise an approval could be decided from the message of another
 * (taking that one's buttons off), or one the chat was given no buttons for (too long to show
 * whole) decided in the chat. A press whose data is on no button of its message is no press
 * (acknowledged, ignored). A message too old for Telegram to hand back its content (`date` 0, an
 * InaccessibleMessage) cannot be checked: its press is taken as it comes.
 */
const choiceOf = (update: unknown): ChoiceMade | undefined => {
  if (typeof update !== 'object' || update === null) return undefined;
  const query = (update as { callback_query?: unknown }).callback_query;
  if (typeof query !== 'object' || query === null) return undefined;
  const { id, data, from, message } = query as {
    id?: unknown;
    data?: unknown;
    from?: { id?: unknown; username?: unknown };
    message?: { message_id?: unknown; date?: unknown; chat?: { id?: unknown }; reply_markup?: unknown };
  };
  const chatId = message?.chat?.id;
  const messageId = message?.message_id;
  if (typeof id !== 'string' || typeof data !== 'string' || typeof from?.id !== 'number' || typeof chatId !== 'number' || typeof messageId !== 'number')
    return undefined;
  const inaccessible = message?.date === 0;
  if (!inaccessible && !keyboardData(message?.reply_markup).includes(data)) return undefined;
  return {
    data,
    chatId: String(chatId),
    userId: String(from.id),
    ...(typeof from.username === 'string' ? { userName: `@${from.username}` } : {}),
    messageId: String(messageId),
    pressId: id,
  };
};
