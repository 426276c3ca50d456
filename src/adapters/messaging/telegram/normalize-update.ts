import type { Attachment, AttachmentKind, ChannelMessage } from '../../../domain/messaging/channel-message.js';

/** The channel the update arrived on: its values go into the message's metadata (SPEC 2.5). */
export interface ChannelIdentity {
  readonly userId: string;
  readonly chatTitle: string;
}

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);
/** Reads an own property only, so nothing is ever picked up from a prototype. */
const field = (object: Fields, name: string): unknown => (Object.hasOwn(object, name) ? object[name] : undefined);
const integer = (value: unknown): number | undefined => (typeof value === 'number' && Number.isSafeInteger(value) ? value : undefined);
const count = (value: unknown): number | undefined => {
  const n = integer(value);
  return n !== undefined && n >= 0 ? n : undefined;
};
const nonEmpty = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const name = (value: unknown): string | undefined => {
  const text = typeof value === 'string' ? value.trim() : '';
  return text === '' ? undefined : text;
};

/** The update fields that carry a message, in the order they are looked for, and whether each is an edit. */
const MESSAGE_FIELDS: ReadonlyArray<readonly [string, boolean]> = [
  ['message', false],
  ['edited_message', true],
  ['channel_post', false],
  ['edited_channel_post', true],
];

/**
 * Single-file attachment fields of a Telegram message, with the MIME type implied by the
 * kind when Telegram sends none (stickers and video notes never carry `mime_type`).
 */
const FILE_FIELDS: ReadonlyArray<readonly [AttachmentKind, ((file: Fields) => string | undefined) | undefined]> = [
  ['document', undefined],
  ['voice', undefined],
  ['audio', undefined],
  ['video', undefined],
  ['animation', undefined],
  ['sticker', (file) => (field(file, 'is_animated') === true ? 'application/x-tgsticker' : field(file, 'is_video') === true ? 'video/webm' : 'image/webp')],
  ['video_note', () => 'video/mp4'],
];

const attachment = (kind: AttachmentKind, file: Fields, impliedMimeType?: string): Attachment | undefined => {
  const fileId = nonEmpty(field(file, 'file_id'));
  if (fileId === undefined) return undefined;
  // An audio file without a file name is best known by its title.
  const fileName = nonEmpty(field(file, 'file_name')) ?? (kind === 'audio' ? nonEmpty(field(file, 'title')) : undefined);
  const mimeType = nonEmpty(field(file, 'mime_type')) ?? impliedMimeType;
  const size = count(field(file, 'file_size'));
  return {
    kind,
    fileId,
    ...(fileName !== undefined && { fileName }),
    ...(mimeType !== undefined && { mimeType }),
    ...(size !== undefined && { size }),
  };
};

const attachmentsOf = (message: Fields): Attachment[] => {
  const found: Attachment[] = [];
  const photo = field(message, 'photo');
  if (Array.isArray(photo)) {
    // Telegram lists the sizes of one photo smallest first: keep only the largest usable one.
    const largest = photo.findLast((size: unknown) => isObject(size) && nonEmpty(field(size, 'file_id')) !== undefined) as Fields | undefined;
    const photoAttachment = largest && attachment('photo', largest, 'image/jpeg');
    if (photoAttachment) found.push(photoAttachment);
  }
  for (const [kind, implied] of FILE_FIELDS) {
    const file = field(message, kind);
    if (!isObject(file)) continue;
    const fileAttachment = attachment(kind, file, implied?.(file));
    if (fileAttachment) found.push(fileAttachment);
  }
  return found;
};

const userName = (user: Fields): string | undefined => {
  const first = name(field(user, 'first_name'));
  const last = name(field(user, 'last_name'));
  const full = [first, last].filter((part) => part !== undefined).join(' ');
  return full !== '' ? full : name(field(user, 'username'));
};

const chatName = (chat: Fields): string | undefined => name(field(chat, 'title')) ?? name(field(chat, 'username'));

/**
 * Turns a Telegram Bot API update (parsed JSON, any shape) into a channel message (SPEC 2.5),
 * its ids (update, message, topic, replied-to message) as strings,
 * or `null` when there is nothing to answer: an update without a message (callback queries,
 * membership changes, reactions, …), a message sent by a bot, a service message or any other
 * message with neither text (or caption) nor a file, and a malformed update. Never throws.
 *
 * Choices beyond the plain field mapping:
 * - a message written on behalf of a chat (`sender_chat`: anonymous group admins, posts as a
 *   channel) is a person's message even though Telegram fills `from` with a placeholder bot,
 *   so it is kept, and its sender is that chat's title;
 * - an automatic forward (`is_automatic_forward`: a channel post Telegram copies into the
 *   channel's linked discussion group, the bot's own posts included) is nothing to answer;
 * - a message of an album (`media_group_id`) names it as `albumId`, `<chat id>:<media_group_id>`
 *   (the same as `albumOf`), so that the album's messages are answered together;
 * - `topicId` is set only for messages in a forum topic (`is_topic_message`): in ordinary
 *   supergroups Telegram also puts a `message_thread_id` on replies, and sending to it fails.
 */
export const normalizeUpdate = (update: unknown, channel: ChannelIdentity): ChannelMessage | null => {
  try {
    if (!isObject(update)) return null;
    const updateId = count(field(update, 'update_id'));
    if (updateId === undefined) return null;

    const carrier = MESSAGE_FIELDS.find(([key]) => field(update, key) !== undefined);
    if (carrier === undefined) return null;
    const [carrierField, edited] = carrier;
    const message = field(update, carrierField);
    if (!isObject(message)) return null;

    const messageId = count(field(message, 'message_id'));
    const chat = field(message, 'chat');
    const chatId = isObject(chat) ? integer(field(chat, 'id')) : undefined;
    if (messageId === undefined || !isObject(chat) || chatId === undefined) return null;

    const sender = field(message, 'from');
    const senderChat = field(message, 'sender_chat');
    if (isObject(sender) && field(sender, 'is_bot') === true && !isObject(senderChat)) return null;
    // A channel post Telegram copied into the channel's linked discussion group: the post itself
    // arrives as a channel_post (answered there, when the channel is allowed), and the bot's own
    // posts in the channel are copied too, so answering the copy would answer twice, or itself.
    if (field(message, 'is_automatic_forward') === true) return null;

    const rawText = [field(message, 'text'), field(message, 'caption')].find((value) => typeof value === 'string' && value !== '');
    const text = typeof rawText === 'string' ? rawText : '';
    const attachments = attachmentsOf(message);
    if (text.trim() === '' && attachments.length === 0) return null;

    const isChannelPost = carrierField === 'channel_post' || carrierField === 'edited_channel_post' || field(chat, 'type') === 'channel';
    const from =
      (isObject(senderChat) ? chatName(senderChat) : undefined) ??
      (isObject(sender) ? userName(sender) : undefined) ??
      (isChannelPost ? chatName(chat) : undefined);
    const topicId = field(message, 'is_topic_message') === true ? count(field(message, 'message_thread_id')) : undefined;
    const replyTo = field(message, 'reply_to_message');
    // In a forum topic, a message that replies to nothing still names the topic's first message.
    const replyToId = isObject(replyTo) && field(replyTo, 'forum_topic_created') === undefined ? count(field(replyTo, 'message_id')) : undefined;
    // An album: each photo or file is a message of its own, the caption on one of them.
    const group = nonEmpty(field(message, 'media_group_id'));

    return {
      threadId: String(chatId),
      text,
      attachments,
      metadata: {
        userId: channel.userId,
        chatTitle: channel.chatTitle,
        updateId: String(updateId),
        messageId: String(messageId),
        ...(topicId !== undefined && { topicId: String(topicId) }),
        ...(replyToId !== undefined && { replyToId: String(replyToId) }),
        ...(from !== undefined && { from }),
        edited,
        ...(group !== undefined && { albumId: `${chatId}:${group}` }),
      },
    };
  } catch {
    // Parsed JSON cannot make property reads throw, but an exotic object (a proxy, a getter) could.
    return null;
  }
};

/**
 * The album a message belongs to, as `<chat id>:<media_group_id>`: Telegram sends each photo or
 * file of an album as a message (and an update) of its own, the caption on one of them.
 * Undefined for a message in no album, and for anything that is no message.
 */
export const albumOf = (update: unknown): string | undefined => {
  if (!isObject(update)) return undefined;
  const carrier = MESSAGE_FIELDS.find(([key]) => field(update, key) !== undefined);
  const message = carrier === undefined ? undefined : field(update, carrier[0]);
  if (!isObject(message)) return undefined;
  const group = nonEmpty(field(message, 'media_group_id'));
  const chat = field(message, 'chat');
  const chatId = isObject(chat) ? integer(field(chat, 'id')) : undefined;
  return group === undefined || chatId === undefined ? undefined : `${chatId}:${group}`;
};

/** The update's `update_id`, read from the raw update (also one that normalizes to nothing); undefined unless a whole, non-negative number. */
export const updateIdOf = (update: unknown): number | undefined => (isObject(update) ? count(field(update, 'update_id')) : undefined);
