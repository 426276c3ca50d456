import { DomainError } from '../../../domain/errors/domain-error.js';
import {
  type ChatText,
  chatTextString,
  type ChoiceButton,
  type ChoiceButtons,
  type ChoiceMade,
  type DownloadedFile,
  type InboundRequest,
  type MessagingChannel,
  type OutgoingMessage,
  type ParsedDelivery,
  type ReplyTarget,
  type SendOptions,
} from '../../../ports/messaging-channel.js';
import { fileTooLarge } from '../bounded-body.js';
import { splitMarkdown } from '../markdown/split-markdown.js';
import { parseInteractivityPayload } from './interactivity-payload.js';
import { challengeOf, eventIdOf, parseEvent } from './parse-event.js';
import { SLACK } from './slack.js';
import { SlackApiError } from './slack-api-error.js';
import { escapeSlack, markdownToMrkdwn, unescapeSlack } from './slack-mrkdwn.js';
import { signatureHeadersPass, signatureMatches } from './slack-signature.js';
import { SlackWebApi, type SlackSettings } from './slack-web-api.js';

/** The acknowledgement: the 👀 reaction, by its Slack name. */
const ACKNOWLEDGEMENT = 'eyes';
/**
 * The longest text of one message. Slack truncates at 40 000 characters and advises keeping a
 * message under 4 000; a little under that leaves room for the escapes mrkdwn adds.
 */
const MAX_MESSAGE_LENGTH = 3500;

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
  /** Block buttons; their presses come to the same webhook (the app's Interactivity Request URL). */
  readonly buttons: ChoiceButtons = this;

  readonly #api: SlackWebApi;

  constructor(settings: SlackSettings) {
    this.#api = new SlackWebApi(settings);
  }

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
    // Slack's check of the Request URL: without its challenge there is nothing to answer it with.
    if (typeof body === 'object' && body !== null && (body as Record<string, unknown>).type === 'url_verification') {
      throw new DomainError('invalid_input', 'Missing challenge: a url_verification carries its challenge as a string');
    }
    return typeof body === 'object' && body !== null && (body as Record<string, unknown>).type === 'app_rate_limited' ? { ok: true } : undefined;
  }

  parse(body: unknown): ParsedDelivery {
    // A button press (interactivity) comes as a form whose `payload` field is the JSON.
    const press = buttonPressOf(body);
    if (press !== undefined) return press;
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

  /**
   * The question in `plain_text` sections (Slack formats nothing there, verbatim parts or not:
   * `*`, `_`, `~`, `<@…>`, `<!channel>`, `<url|label>` and `:emoji:` show as typed), as many as
   * its length needs, cut at line breaks; the buttons under them, when there are any. The
   * notification's `text` goes escaped (`&`, `<`, `>`: no mention or link sequence) with
   * formatting off. No unfurling.
   */
  async ask(token: string, target: ReplyTarget, question: ChatText, buttons: readonly ChoiceButton[]): Promise<void> {
    const text = chatTextString(question);
    const actions = {
      type: 'actions',
      elements: buttons.map((button, i) => ({
        type: 'button',
        action_id: `agw-${i}`,
        text: { type: 'plain_text', text: button.label },
        value: button.data,
        ...(i === 0 ? { style: 'primary' } : { style: 'danger' }),
      })),
    };
    await this.#api.call(token, 'chat.postMessage', {
      channel: target.chatId,
      ...(target.topicId !== undefined && { thread_ts: target.topicId }),
      text: escapeSlack(text),
      mrkdwn: false,
      unfurl_links: false,
      unfurl_media: false,
      blocks: [...plainSections(text), ...(buttons.length > 0 ? [actions] : [])],
    });
  }

  async settle(token: string, choice: ChoiceMade, outcome: string): Promise<void> {
    // The question stays (as plain text, as it was asked), the buttons go, the outcome is said
    // under it (the press itself is answered by the 200). Slack hands the message's text back escaped.
    const question = choice.messageText ?? '';
    const shownOutcome = outcome.slice(0, SECTION_LIMIT);
    await this.#api.call(token, 'chat.update', {
      channel: choice.chatId,
      ts: choice.messageId,
      text: `${question}\n\n${escapeSlack(shownOutcome)}`,
      blocks: [...plainSections(unescapeSlack(question)), { type: 'context', elements: [{ type: 'plain_text', text: shownOutcome, emoji: false }] }],
    });
  }

  async sendMessage(token: string, target: ReplyTarget, message: OutgoingMessage, options?: SendOptions): Promise<void> {
    const base = { channel: target.chatId, ...(target.topicId !== undefined && { thread_ts: target.topicId }), unfurl_links: false, unfurl_media: false };
    // Slack takes any mrkdwn; plain text is sent escaped with formatting off.
    const body =
      message.formatted !== undefined ? { ...base, text: message.formatted, mrkdwn: true } : { ...base, text: escapeSlack(message.plain), mrkdwn: false };
    await this.#api.call(token, 'chat.postMessage', body, { once: options?.once });
  }

  /** Slack shows bots no "typing…" (outside its AI-app assistant threads): nothing to send. */
  async sendTyping(): Promise<void> {}

  async acknowledge(token: string, target: ReplyTarget, messageId: string): Promise<void> {
    try {
      await this.#api.call(token, 'reactions.add', { channel: target.chatId, timestamp: messageId, name: ACKNOWLEDGEMENT });
    } catch (error) {
      // Acknowledged already (a message answered again after a restart): done.
      if (!(error instanceof SlackApiError && error.error === 'already_reacted')) throw error;
    }
  }

  /** `files.info` (scope `files:read`) for the file's private download address and size, then the file, with the token, at most `maxBytes`. */
  async download(token: string, fileId: string, maxBytes = Number.POSITIVE_INFINITY): Promise<DownloadedFile> {
    const answer = await this.#api.call(token, 'files.info', { file: fileId });
    const file = answer.file as { url_private_download?: unknown; url_private?: unknown; name?: unknown; size?: unknown } | undefined;
    if (typeof file?.size === 'number' && file.size > maxBytes) throw fileTooLarge(maxBytes, file.size);
    const address = typeof file?.url_private_download === 'string' ? file.url_private_download : file?.url_private;
    if (typeof address !== 'string') throw new SlackApiError('files.info', 200, 'no_download_url');
    // The token goes only to Slack's own file host (or the configured API's origin, a fake in tests).
    return { data: await this.#api.download(token, address, maxBytes), path: typeof file?.name === 'string' ? file.name : fileId };
  }
}

/** The most text a section block holds (Slack refuses more). */
const SECTION_LIMIT = 3000;

/**
 * `text` in `plain_text` sections of at most SECTION_LIMIT characters each, cut after a line
 * break where one is in reach (a line longer than a section goes on in the next): nothing of it
 * is left out. Blank sections (Slack refuses them) are left out.
 */
const plainSections = (text: string): Array<{ type: 'section'; text: { type: 'plain_text'; text: string; emoji: false } }> => {
  const parts: string[] = [];
  let rest = text;
  while (rest.length > SECTION_LIMIT) {
    const lineEnd = rest.lastIndexOf('\n', SECTION_LIMIT - 1);
    let cut = lineEnd > 0 ? lineEnd + 1 : SECTION_LIMIT;
    // Never between the two halves of a surrogate pair.
    if (cut === SECTION_LIMIT && /[\uD800-\uDBFF]/.test(rest[cut - 1])) cut--;
    parts.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  parts.push(rest);
  return parts
    .map((part) => part.replace(/^\n+|\n+$/g, ''))
    .filter((part) => part.trim() !== '')
    .map((part) => ({ type: 'section', text: { type: 'plain_text', text: part, emoji: false } }));
};

/** A press of one of the gateway's buttons: a `block_actions` interactivity payload (form field `payload`), or undefined. */
const buttonPressOf = (body: unknown): ParsedDelivery | undefined => {
  if (typeof body !== 'object' || body === null || Array.isArray(body) || !Object.hasOwn(body, 'payload')) return undefined;
  const raw = (body as { payload?: unknown }).payload;
  const payload = typeof raw === 'string' ? parseInteractivityPayload(raw) : undefined;
  const p = payload as {
    type?: unknown;
    user?: { id?: unknown; username?: unknown };
    container?: { channel_id?: unknown; message_ts?: unknown };
    channel?: { id?: unknown };
    message?: { ts?: unknown; text?: unknown };
    actions?: Array<{ value?: unknown; action_ts?: unknown }>;
  };
  if (typeof p !== 'object' || p === null || p.type !== 'block_actions') throw new DomainError('invalid_input', 'Only block_actions payloads are taken');
  const action = Array.isArray(p.actions) ? p.actions[0] : undefined;
  const chatId = p.channel?.id ?? p.container?.channel_id;
  const messageId = p.message?.ts ?? p.container?.message_ts;
  if (
    typeof action?.value !== 'string' ||
    typeof action.action_ts !== 'string' ||
    typeof chatId !== 'string' ||
    typeof messageId !== 'string' ||
    typeof p.user?.id !== 'string'
  ) {
    throw new DomainError('invalid_input', 'The block_actions payload lacks its action, channel, message or user');
  }
  return {
    deliveryId: `action:${messageId}:${action.action_ts}`,
    message: null,
    choice: {
      data: action.value,
      chatId,
      userId: p.user.id,
      ...(typeof p.user.username === 'string' ? { userName: `@${p.user.username}` } : {}),
      messageId,
      ...(typeof p.message?.text === 'string' ? { messageText: p.message.text } : {}),
    },
  };
};
