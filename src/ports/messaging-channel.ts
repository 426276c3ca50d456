import type { ChannelMessage } from '../domain/messaging/channel-message.js';

/** Where a reply goes: the chat, and the thread within it (a forum topic, a reply thread) when there is one. */
export interface ReplyTarget {
  readonly chatId: string;
  readonly topicId?: string;
}

/**
 * A webhook request as the HTTP adapter hands it over, to be verified: its body is parsed only
 * once it is (ReceiveMessagingUpdate). Header names are lower-case.
 */
export interface InboundRequest {
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** The body's exact bytes (after content decoding), which a signature covers. */
  readonly rawBody: Uint8Array;
}

/** A platform delivery, read. */
export interface ParsedDelivery {
  /** The platform's id of the delivery, the same when it delivers it again (de-duplication). */
  readonly deliveryId: string;
  /**
   * The message to answer, or null when there is none: a bot's message, a membership change,
   * a reaction, an edit the platform reports, anything without text or a file.
   */
  readonly message: ChannelMessage | null;
  /**
   * The platform's id of the message itself, where several deliveries can carry one message
   * (a mention of the bot arrives as a message and as a mention, each with its own delivery
   * id): the message is then answered once. Without it, each delivery's message is answered.
   */
  readonly messageKey?: string;
  /** A person pressed a button of a message the bot sent (see `ChoiceButtons`); `message` is then null. */
  readonly choice?: ChoiceMade;
}

/** A press of a button the bot sent: an approval's Approve or Deny. */
export interface ChoiceMade {
  /** The pressed button's data, as `ChoiceButtons.ask` sent it. */
  readonly data: string;
  readonly chatId: string;
  readonly userId: string;
  /** The person's handle on the platform, when it has one (for the record of who decided). */
  readonly userName?: string;
  /** The message that carries the buttons. */
  readonly messageId: string;
  /** The platform's id of the press, where it must be answered (Telegram's callback query). */
  readonly pressId?: string;
  /** The text of the message with the buttons, where the platform hands it back (Slack): kept when the buttons go. */
  readonly messageText?: string;
}

/** A button the bot offers under a message. */
export interface ChoiceButton {
  readonly label: string;
  /** Up to 64 ASCII characters (the strictest platform's limit), handed back on a press. */
  readonly data: string;
}

/**
 * A part of a message's text. `verbatim` marks data (a request's values, a trigger's name): the
 * platform shows it exactly as it is, inert — never as formatting, a link, a mention, a command,
 * a hashtag, an address or a phone number the reader could press — set off as code, `inline` within
 * its line or as a `block` of its own. Without it, the text is the gateway's own words, plain.
 */
export interface ChatTextPart {
  readonly text: string;
  readonly verbatim?: 'inline' | 'block';
}

/** The text of a message the gateway writes, data in it marked (ChatTextPart). */
export type ChatText = readonly ChatTextPart[];

/** The text of `parts` as the reader sees it: its parts one after the other. */
export const chatTextString = (parts: ChatText): string => parts.map((part) => part.text).join('');

/** Messages with buttons a person presses (Telegram inline keyboards, Slack block buttons). */
export interface ChoiceButtons {
  /**
   * Sends `text` (at most `maxMessageLength` characters in all; no link previews) with one row of
   * `buttons` — none: a message without buttons. Its verbatim parts are shown as ChatTextPart says.
   */
  ask(token: string, target: ReplyTarget, text: ChatText, buttons: readonly ChoiceButton[]): Promise<void>;
  /** Answers a press: takes the buttons off its message and says `outcome` there (the decision, or why it was refused). */
  settle(token: string, choice: ChoiceMade, outcome: string): Promise<void>;
}

/** How a message is sent. */
export interface SendOptions {
  /**
   * One attempt only, the platform's rate limit (429), a server error or a network error
   * included: for a message that can be lost (a not-allowed chat's notice, a typing indicator),
   * which then never holds a worker in a rate limit's wait. A rate limit's failure carries the
   * wait the platform asked for, in ms, as `retryAfterMs`.
   */
  readonly once?: boolean;
}

/** One message to send: `formatted` in the platform's rich format, `plain` when the platform refuses it. */
export interface OutgoingMessage {
  readonly plain: string;
  readonly formatted?: string;
}

export interface WebhookInfo {
  readonly url: string;
  readonly hasCustomCertificate: boolean;
  readonly pendingUpdateCount: number;
  readonly lastErrorDate?: number;
  readonly lastErrorMessage?: string;
}

export interface DownloadedFile {
  readonly data: Uint8Array;
  /** The platform's path of the file (its name often tells the type). */
  readonly path: string;
}

/** A platform that is told the webhook's address by an API call (a `setWebhook`), not in its own console. */
export interface WebhookRegistration {
  /** What is wrong with a bot token's form, naming the form expected; undefined when it is well formed. Checked before the platform is called. */
  tokenProblem(token: string): string | undefined;
  /** Points the platform's deliveries at `url`, sending `secret` with each. */
  setWebhook(token: string, url: string, secret: string): Promise<void>;
  getWebhookInfo(token: string): Promise<WebhookInfo>;
  /**
   * Where the bot's deliveries go now: its webhook URL, `''` when it has none, or null when the
   * platform refuses the token (revoked, deleted bot). Rejects on any other failure.
   */
  webhookUrl(token: string): Promise<string | null>;
}

/** A delivery fetched by polling: the platform's delivery, as its webhook would have sent it. */
export interface PolledDelivery {
  /** The delivery as the webhook's JSON body would be (parse() reads it). */
  readonly body: unknown;
  /** Where the next poll starts once this delivery is taken in (it confirms this one and those before). */
  readonly next: string;
}

/** A platform whose deliveries can also be fetched by long polling, for a gateway without a public HTTPS address. */
export interface DeliveryPolling {
  /** Stops webhook deliveries, which the platform requires before it answers polls. Idempotent. */
  stopWebhook(token: string, signal?: AbortSignal): Promise<void>;
  /**
   * Waits up to `waitSeconds` for deliveries after `cursor` (from the oldest unconfirmed when
   * undefined) and returns them, oldest first (empty when none came). Asking from `cursor`
   * confirms everything before it. Tried once: a failure is thrown (`MessagingError`-like, with
   * `status` 409 when another poller or a webhook is in the way); an abort by `signal` rejects.
   */
  poll(token: string, cursor: string | undefined, waitSeconds: number, signal: AbortSignal): Promise<PolledDelivery[]>;
}

/**
 * A chat platform: everything the channel-neutral core (the use cases over the channel
 * registry) needs to know of it — how its webhook requests are verified and read, how a reply
 * is formatted, split and sent, how a message is acknowledged and "typing…" shown.
 *
 * Calls to the platform take the bot token (it may be replaced at run time by a
 * registration), are tried again after network errors, timeouts, server errors and rate
 * limits (waiting as the platform asks), a bounded number of times; anything else, and the
 * last failure, is thrown. Errors never contain the token.
 */
export interface MessagingChannel {
  /** Lower-case letters, digits and `-`: the `<channel>` of `/api/messaging/<channel>/…` and the namespace of its chats. */
  readonly id: string;
  /** The display name (SPEC 2.5 `chatTitle`). */
  readonly title: string;
  /** The longest text one message may carry. */
  readonly maxMessageLength: number;
  /**
   * Lower-case names of the headers that carry this platform's secret or signature: never
   * kept in trigger snapshots (so never stored, rendered or forwarded) nor logged.
   */
  readonly credentialHeaders: readonly string[];
  /** Whether each thread of a chat is a conversation of its own (the agent's memory, job notices), or a chat is one conversation. */
  readonly threadsAreConversations: boolean;
  /** How often "typing…" is sent again while the work lasts; undefined when the platform shows none. */
  readonly typingRefreshMs: number | undefined;
  /** Present where the platform's webhook is registered by an API call; it then has `POST /api/messaging/<channel>/register`. */
  readonly registration?: WebhookRegistration;
  /** Present where deliveries can also be fetched by polling instead of a webhook. */
  readonly polling?: DeliveryPolling;
  /** Where the platform has buttons a person can press: approvals are asked there. */
  readonly buttons?: ChoiceButtons;
  /**
   * The bot's own name (without `@`) on a platform where a command is addressed to a bot by name
   * (`/new@name`, Telegram), so that one meant for another bot is not taken as this one's;
   * undefined when it cannot be told now. Absent on a platform without such commands.
   */
  botName?(token: string): Promise<string | undefined>;

  /**
   * What the headers alone tell of a webhook request, checked before its body is read: with a
   * secret in a header, the whole check; with a signature over the body, that one is there,
   * well formed and recent. Compared in constant time; false when the request is to be refused.
   */
  checkHeaders(headers: InboundRequest['headers'], secret: string, now: Date): boolean;
  /** The whole request's check, once the body is read (a signature over the raw body); after checkHeaders passed. */
  verify(request: InboundRequest, secret: string, now: Date): boolean;
  /** The answer to a platform's handshake request (a URL-verification challenge), or undefined when the request is none. Asked once the request is verified. */
  handshake(body: unknown): unknown;
  /**
   * Reads a delivery (parsed JSON of any shape): its id, and the message normalized (SPEC 2.5)
   * with the channel's id and title in its metadata. Never throws for a delivery that has an id.
   * @throws DomainError `invalid_input` naming the field when the delivery has no usable id.
   */
  parse(body: unknown): ParsedDelivery;

  /**
   * The messages that carry a reply the agent wrote in Markdown: split at the platform's
   * limit (never inside a code block that fits one message), each in the platform's rich
   * format with the plain text to send when the platform refuses it. Never throws.
   */
  formatReply(markdown: string): OutgoingMessage[];
  /** Sends one message of formatReply (or a plain one of at most `maxMessageLength`); a refused format is sent plain. */
  sendMessage(token: string, target: ReplyTarget, message: OutgoingMessage, options?: SendOptions): Promise<void>;
  /**
   * Shows "typing…" for a few seconds (nothing where the platform has no indicator). With
   * `once`, one attempt: a rate limit's failure is thrown at once, with the wait the platform
   * asked for as `retryAfterMs`.
   */
  sendTyping(token: string, target: ReplyTarget, options?: SendOptions): Promise<void>;
  /** A cheap acknowledgement of a received message (a reaction). */
  acknowledge(token: string, target: ReplyTarget, messageId: string): Promise<void>;
  /**
   * Downloads a file of a message.
   * @throws DomainError `payload_too_large` when the file is larger than `maxBytes` (told by the
   * platform before the download where it can), or larger than the platform lets bots download.
   */
  download(token: string, fileId: string, maxBytes?: number): Promise<DownloadedFile>;
}
