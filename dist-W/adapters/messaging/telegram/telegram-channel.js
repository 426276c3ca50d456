import { createHash, timingSafeEqual } from 'node:crypto';
import fetch from 'node-fetch';
import pRetry from 'p-retry';
import { DomainError } from '../../../domain/errors/domain-error.js';
import { splitMarkdown } from '../markdown/split-markdown.js';
import { normalizeUpdate, updateIdOf } from './normalize-update.js';
import { TELEGRAM } from './telegram.js';
import { markdownToTelegramHtml } from './telegram-html.js';
/** A Bot API answer that is not `ok`. The message never contains the token. */
export class MessagingError extends Error {
    method;
    status;
    description;
    retryAfterMs;
    constructor(method, status, description, 
    /** How long the platform asked to wait before the call is tried again (429). */
    retryAfterMs) {
        super(`Telegram ${method} failed (${status}): ${description}`);
        this.method = method;
        this.status = status;
        this.description = description;
        this.retryAfterMs = retryAfterMs;
        this.name = 'MessagingError';
    }
    /** Worth another attempt: no answer (network, timeout), a server error, or a rate limit. */
    get transient() {
        return this.status === 0 || this.status === 429 || this.status >= 500;
    }
}
const SECRET_HEADER = TELEGRAM.credentialHeaders[0];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** A bot token as Telegram issues them: the bot's number, a colon, then letters, digits, `_` and `-`. */
const TOKEN_SHAPE = /^[0-9]{1,20}:[A-Za-z0-9_-]{1,200}$/;
/** The acknowledgement: one of the reactions a bot may set (✅ is not). */
const ACKNOWLEDGEMENT = '👀';
/** The updates the gateway asks for, by webhook or by polling. */
const ALLOWED_UPDATES = ['message', 'edited_message', 'channel_post', 'edited_channel_post', 'callback_query'];
/** How much longer than the long poll's own wait a getUpdates call may take before it counts as timed out. */
const POLL_GRACE_MS = 15_000;
const digest = (text) => createHash('sha256').update(text, 'utf8').digest();
/** Constant-time equality whatever the lengths (both sides hashed first). */
const sameSecret = (given, secret) => given !== undefined && timingSafeEqual(digest(given), digest(secret));
/** Telegram numbers its messages and topics: a number of ours is one of its. */
const telegramNumber = (id) => {
    const number = Number(id);
    if (!/^-?\d+$/.test(id) || !Number.isSafeInteger(number))
        throw new MessagingError('id', 400, `not a Telegram id: ${JSON.stringify(id.slice(0, 40))}`);
    return number;
};
const topic = (target) => target.topicId !== undefined ? { message_thread_id: telegramNumber(target.topicId) } : {};
/**
 * The Telegram channel: the Bot API (`POST {apiUrl}/bot<token>/<method>` with JSON bodies) and
 * its webhook — the secret in `X-Telegram-Bot-Api-Secret-Token`, Updates identified by
 * `update_id`, HTML formatting, 4096 characters a message, "typing…" for about 5 s.
 */
export class TelegramChannel {
    settings;
    id = TELEGRAM.id;
    title = TELEGRAM.title;
    maxMessageLength = 4096;
    credentialHeaders = TELEGRAM.credentialHeaders;
    threadsAreConversations = false;
    typingRefreshMs = 4000;
    registration = this;
    polling = this;
    buttons = this;
    constructor(settings) {
        this.settings = settings;
    }
    checkHeaders(headers, secret) {
        return sameSecret(headers[SECRET_HEADER], secret);
    }
    verify(request, secret) {
        return this.checkHeaders(request.headers, secret);
    }
    handshake() {
        return undefined;
    }
    parse(body) {
        const updateId = updateIdOf(body);
        if (updateId === undefined)
            throw new DomainError('invalid_input', 'Missing update_id');
        const choice = choiceOf(body);
        if (choice !== undefined)
            return { deliveryId: String(updateId), message: null, choice };
        return { deliveryId: String(updateId), message: normalizeUpdate(body, { userId: this.id, chatTitle: this.title }) };
    }
    async ask(token, target, text, buttons) {
        await this.#call(token, 'sendMessage', {
            chat_id: target.chatId,
            ...topic(target),
            text: text.slice(0, this.maxMessageLength),
            link_preview_options: { is_disabled: true },
            reply_markup: { inline_keyboard: [buttons.map((button) => ({ text: button.label, callback_data: button.data }))] },
        });
    }
    async settle(token, choice, outcome) {
        // The press first (Telegram shows a spinner until it is answered), then the buttons go, then the outcome is said.
        if (choice.pressId !== undefined)
            await this.#call(token, 'answerCallbackQuery', { callback_query_id: choice.pressId, text: outcome.slice(0, 200) });
        const message = { chat_id: choice.chatId, message_id: telegramNumber(choice.messageId) };
        await this.#call(token, 'editMessageReplyMarkup', { ...message, reply_markup: { inline_keyboard: [] } });
        await this.#call(token, 'sendMessage', {
            chat_id: choice.chatId,
            text: outcome.slice(0, this.maxMessageLength),
            reply_parameters: { message_id: message.message_id },
        });
    }
    formatReply(markdown) {
        // Telegram counts its limit on the visible text, which the conversion never lengthens.
        return splitMarkdown(markdown, this.maxMessageLength).map((part) => ({ plain: part, formatted: markdownToTelegramHtml(part) }));
    }
    tokenProblem(token) {
        return TOKEN_SHAPE.test(token) ? undefined : 'expected the form 123456:ABC-DEF1234ghIkl';
    }
    async setWebhook(token, url, secret) {
        await this.#call(token, 'setWebhook', {
            url,
            secret_token: secret,
            allowed_updates: ALLOWED_UPDATES,
        });
    }
    async stopWebhook(token, signal) {
        // Pending updates are kept: polling picks them up.
        await this.#call(token, 'deleteWebhook', { drop_pending_updates: false }, signal);
    }
    /** `getUpdates` (long polling): `offset` confirms every update before it; the next cursor is update_id + 1. */
    async poll(token, cursor, waitSeconds, signal) {
        const updates = await this.#attempt(token, 'getUpdates', { ...(cursor !== undefined && { offset: Number(cursor) }), timeout: waitSeconds, allowed_updates: ALLOWED_UPDATES }, { timeoutMs: waitSeconds * 1000 + POLL_GRACE_MS, signal });
        if (!Array.isArray(updates))
            throw new MessagingError('getUpdates', 200, 'the result is not a list of updates');
        return updates.flatMap((update) => {
            const id = updateIdOf(update);
            return id === undefined ? [] : [{ body: update, next: String(id + 1) }];
        });
    }
    async getWebhookInfo(token) {
        const info = await this.#call(token, 'getWebhookInfo', {});
        return {
            url: String(info.url ?? ''),
            hasCustomCertificate: Boolean(info.has_custom_certificate),
            pendingUpdateCount: Number(info.pending_update_count ?? 0),
            ...(typeof info.last_error_date === 'number' ? { lastErrorDate: info.last_error_date } : {}),
            ...(typeof info.last_error_message === 'string' ? { lastErrorMessage: info.last_error_message } : {}),
        };
    }
    async sendMessage(token, target, message) {
        const base = { chat_id: target.chatId, ...topic(target), link_preview_options: { is_disabled: true } };
        if (message.formatted !== undefined) {
            try {
                await this.#call(token, 'sendMessage', { ...base, text: message.formatted, parse_mode: 'HTML' });
                return;
            }
            catch (error) {
                // Telegram refuses markup it cannot parse; the same text then goes as plain text.
                if (!(error instanceof MessagingError && error.status === 400 && /parse entities|can't parse/i.test(error.description)))
                    throw error;
            }
        }
        await this.#call(token, 'sendMessage', { ...base, text: message.plain });
    }
    async sendTyping(token, target) {
        await this.#call(token, 'sendChatAction', { chat_id: target.chatId, action: 'typing', ...topic(target) });
    }
    async acknowledge(token, target, messageId) {
        await this.#call(token, 'setMessageReaction', {
            chat_id: target.chatId,
            message_id: telegramNumber(messageId),
            reaction: [{ type: 'emoji', emoji: ACKNOWLEDGEMENT }],
        });
    }
    async download(token, fileId, maxBytes = Number.POSITIVE_INFINITY) {
        const tooLarge = (size) => new DomainError('payload_too_large', size === undefined ? 'The file is too large to download' : `The file is ${size} bytes, over the limit of ${maxBytes}`);
        let file;
        try {
            file = await this.#call(token, 'getFile', { file_id: fileId });
        }
        catch (error) {
            // Telegram lets bots download files of up to 20 MB: larger ones are refused here.
            if (error instanceof MessagingError && error.status === 400 && /too big/i.test(error.description))
                throw tooLarge(undefined);
            throw error;
        }
        if (typeof file.file_size === 'number' && file.file_size > maxBytes)
            throw tooLarge(file.file_size);
        if (!file.file_path)
            throw new MessagingError('getFile', 200, 'no file_path (file too large to download?)');
        const response = await fetch(`${this.settings.apiUrl}/file/bot${token}/${file.file_path}`, { signal: AbortSignal.timeout(this.settings.timeoutMs) });
        if (!response.ok)
            throw new MessagingError('download', response.status, response.statusText);
        const declared = Number(response.headers.get('content-length') ?? Number.NaN);
        if (declared > maxBytes)
            throw tooLarge(declared);
        const data = new Uint8Array(await response.arrayBuffer());
        if (data.length > maxBytes)
            throw tooLarge(data.length);
        return { data, path: file.file_path };
    }
    /**
     * One Bot API call, tried again (p-retry, exponential backoff) after a network error, a
     * timeout, a 5xx or a 429 — after a 429 also waiting as long as the platform asked.
     */
    #call(token, method, body, signal) {
        const wait = this.settings.sleep ?? sleep;
        return pRetry(() => this.#attempt(token, method, body, { timeoutMs: this.settings.timeoutMs, signal }), {
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
    async #attempt(token, method, body, options) {
        let answer;
        let status;
        try {
            const response = await fetch(`${this.settings.apiUrl}/bot${token}/${method}`, {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify(body),
                signal: AbortSignal.any([AbortSignal.timeout(options.timeoutMs), ...(options.signal ? [options.signal] : [])]),
            });
            status = response.status;
            answer = (await response.json().catch(() => ({ ok: false, description: response.statusText })));
        }
        catch (error) {
            // Stopped by the caller: not a platform failure.
            if (options.signal?.aborted)
                throw options.signal.reason;
            // Network errors name the URL, which holds the token: never pass them on as they are.
            throw new MessagingError(method, 0, error.name === 'TimeoutError' || error.name === 'AbortError' ? 'timed out' : 'network error');
        }
        if (answer.ok)
            return answer.result;
        const retryAfter = answer.parameters?.retry_after;
        throw new MessagingError(method, answer.error_code ?? status, answer.description ?? 'unknown error', retryAfter === undefined ? undefined : retryAfter * 1000);
    }
}
/** A press of an inline keyboard button (`callback_query` with its data and message), or undefined. */
const choiceOf = (update) => {
    if (typeof update !== 'object' || update === null)
        return undefined;
    const query = update.callback_query;
    if (typeof query !== 'object' || query === null)
        return undefined;
    const { id, data, from, message } = query;
    const chatId = message?.chat?.id;
    const messageId = message?.message_id;
    if (typeof id !== 'string' || typeof data !== 'string' || typeof from?.id !== 'number' || typeof chatId !== 'number' || typeof messageId !== 'number')
        return undefined;
    return {
        data,
        chatId: String(chatId),
        userId: String(from.id),
        ...(typeof from.username === 'string' ? { userName: `@${from.username}` } : {}),
        messageId: String(messageId),
        pressId: id,
    };
};
//# sourceMappingURL=telegram-channel.js.map