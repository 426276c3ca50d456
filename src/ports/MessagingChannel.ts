/** Where a reply goes inside a chat. */
export interface ReplyTarget {
  readonly chatId: string;
  /** Forum topic. */
  readonly topicId?: number;
}

export interface WebhookInfo {
  readonly url: string;
  readonly hasCustomCertificate: boolean;
  readonly pendingUpdateCount: number;
  readonly lastErrorDate?: number;
  readonly lastErrorMessage?: string;
}

/** One message to send: `formatted` in the platform's rich format, `plain` when the platform refuses it. */
export interface OutgoingMessage {
  readonly plain: string;
  readonly formatted?: string;
}

export interface DownloadedFile {
  readonly data: Uint8Array;
  /** The platform's path of the file (its name often tells the type). */
  readonly path: string;
}

/**
 * A chat platform's bot API. Every call takes the bot token (it may be replaced at run time
 * by a registration). Calls are tried again after network errors, timeouts, server errors and
 * rate limits (waiting as the platform asks), a bounded number of times; anything else, and
 * the last failure, is thrown. Errors never contain the token.
 */
export interface MessagingChannel {
  /** The channel's id and display name (SPEC 2.5 metadata: `userId`, `chatTitle`). */
  readonly id: string;
  readonly title: string;
  /** The longest text one message may carry. */
  readonly maxMessageLength: number;

  /**
   * The messages that carry a reply the agent wrote in Markdown: split at the platform's
   * limit (never inside a code block that fits one message), each in the platform's rich
   * format with the plain text to send when the platform refuses it. Never throws.
   */
  formatReply(markdown: string): OutgoingMessage[];

  setWebhook(token: string, url: string, secret: string): Promise<void>;
  getWebhookInfo(token: string): Promise<WebhookInfo>;
  /**
   * Sends one message of at most `maxMessageLength` characters. `formatted` is the same text
   * in the platform's rich format; when the platform refuses it, `plain` is sent instead.
   */
  sendMessage(token: string, target: ReplyTarget, message: OutgoingMessage): Promise<void>;
  /** Shows "typing…" for a few seconds. */
  sendTyping(token: string, target: ReplyTarget): Promise<void>;
  /** A cheap acknowledgement of a received message. */
  react(token: string, chatId: string, messageId: number, emoji: string): Promise<void>;
  download(token: string, fileId: string): Promise<DownloadedFile>;
}
