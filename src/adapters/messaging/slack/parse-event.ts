import type { Attachment, AttachmentKind, ChannelMessage } from '../../../domain/messaging/channel-message.js';
import { unescapeSlack } from './slack-mrkdwn.js';

/** The channel the event arrived on: its values go into the message's metadata (SPEC 2.5). */
export interface ChannelIdentity {
  readonly userId: string;
  readonly chatTitle: string;
}

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);
/** Reads an own property only, so nothing is ever picked up from a prototype. */
const field = (object: Fields, name: string): unknown => (Object.hasOwn(object, name) ? object[name] : undefined);
const nonEmpty = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value : undefined);
const count = (value: unknown): number | undefined => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined);

/** The event types answered: a message the app sees (a DM, a channel it is in), and a mention of the app. */
const ANSWERED_EVENTS = new Set(['message', 'app_mention']);
/** Message subtypes that are still a person's new message: one with files, a thread reply also sent to the channel. */
const PERSON_SUBTYPES = new Set(['file_share', 'thread_broadcast']);
/**
 * Slack's own bot user: its reminders and notices (a channel's `/remind` goes out as a Slackbot
 * message, without `bot_id` nor a subtype) are no person's messages.
 */
const SLACKBOT = 'USLACKBOT';
/** A Slack message timestamp: its id within the channel. */
const TS = /^\d{1,12}\.\d{1,9}$/;
/** A mention of someone at the start of a text (`<@U0123ABC>` or `<@U0123ABC|name>`): the app's, in a mention event. */
const LEADING_MENTION = /^\s*<@[A-Z0-9]+(?:\|[^>]*)?>[\s,:]*/;

const kindOf = (mimeType: string | undefined): AttachmentKind => {
  if (mimeType?.startsWith('image/')) return 'photo';
  if (mimeType?.startsWith('audio/')) return 'audio';
  if (mimeType?.startsWith('video/')) return 'video';
  return 'document';
};

const attachmentsOf = (event: Fields): Attachment[] => {
  const files = field(event, 'files');
  if (!Array.isArray(files)) return [];
  return files.flatMap((file: unknown): Attachment[] => {
    if (!isObject(file)) return [];
    const fileId = nonEmpty(field(file, 'id'));
    // Files of another workspace, or deleted, come as stubs the bot cannot fetch.
    if (fileId === undefined || field(file, 'mode') === 'tombstone') return [];
    const fileName = nonEmpty(field(file, 'name')) ?? nonEmpty(field(file, 'title'));
    const mimeType = nonEmpty(field(file, 'mimetype'));
    const size = count(field(file, 'size'));
    return [
      {
        kind: kindOf(mimeType),
        fileId,
        ...(fileName !== undefined && { fileName }),
        ...(mimeType !== undefined && { mimeType }),
        ...(size !== undefined && { size }),
      },
    ];
  });
};

const senderOf = (event: Fields): string | undefined => {
  const profile = field(event, 'user_profile');
  const named = isObject(profile)
    ? (nonEmpty(field(profile, 'display_name')) ?? nonEmpty(field(profile, 'real_name')) ?? nonEmpty(field(profile, 'name')))
    : undefined;
  return named?.trim() ?? nonEmpty(field(event, 'user'));
};

/** The app's bot user, as the envelope's `authorizations` name it. */
const botUserOf = (body: Fields): string | undefined => {
  const authorizations = field(body, 'authorizations');
  if (!Array.isArray(authorizations)) return undefined;
  const bot = authorizations.find((entry: unknown) => isObject(entry) && field(entry, 'is_bot') === true) as Fields | undefined;
  const id = bot === undefined ? undefined : nonEmpty(field(bot, 'user_id'));
  return id !== undefined && /^[A-Z0-9]+$/.test(id) ? id : undefined;
};

/** The Events API envelope's `event_id`: the same on every retry of one event. */
export const eventIdOf = (body: unknown): string | undefined => {
  if (!isObject(body)) return undefined;
  const id = nonEmpty(field(body, 'event_id'));
  return id !== undefined && /^[A-Za-z0-9_-]{1,128}$/.test(id) ? id : undefined;
};

/** The message an event carries, and its key (channel and timestamp), which a `message` and an `app_mention` of one message share. */
export interface SlackMessage {
  readonly message: ChannelMessage;
  readonly key: string;
}

/**
 * Turns an Events API `event_callback` (parsed JSON, any shape) into a channel message (SPEC
 * 2.5), or `null` when there is nothing to answer: another envelope or event type, a bot's
 * message (`bot_id`, `subtype: bot_message`), an edit, a deletion or any other subtype but a
 * person's message with files or a thread reply also sent to the channel, a message of the
 * app's own bot user (as `authorizations` names it) or of Slackbot even without `bot_id`, and a
 * message with neither text nor a file. Never throws.
 *
 * The chat is the Slack channel (`C…`, `G…`, `D…` for a DM), the message id its `ts`, and its
 * thread (`topicId`) the thread it is in (`thread_ts`), else the one its reply starts (its own
 * `ts`): replies go in the thread. Slack's escapes (`&amp;`, `&lt;`, `&gt;`) are undone, and a
 * leading mention of the app (a mention event's, or the app's bot user as `authorizations` names
 * it) is dropped.
 */
export const parseEvent = (body: unknown, channel: ChannelIdentity): SlackMessage | null => {
  try {
    if (!isObject(body) || field(body, 'type') !== 'event_callback') return null;
    const eventId = eventIdOf(body);
    const event = field(body, 'event');
    if (eventId === undefined || !isObject(event)) return null;
    const type = field(event, 'type');
    if (typeof type !== 'string' || !ANSWERED_EVENTS.has(type)) return null;
    if (field(event, 'bot_id') !== undefined || field(event, 'bot_profile') !== undefined) return null;
    const subtype = field(event, 'subtype');
    if (subtype !== undefined && !(typeof subtype === 'string' && PERSON_SUBTYPES.has(subtype))) return null;

    const chatId = nonEmpty(field(event, 'channel'));
    const ts = nonEmpty(field(event, 'ts'));
    const user = nonEmpty(field(event, 'user'));
    if (chatId === undefined || ts === undefined || !TS.test(ts) || user === undefined) return null;
    const bot = botUserOf(body);
    // The app's own messages (a file it shares comes as its bot user's `file_share`, without
    // `bot_id`) and Slackbot's: answering them could answer the gateway's own replies, a loop.
    if (user === bot || user === SLACKBOT) return null;
    const threadTs = nonEmpty(field(event, 'thread_ts'));
    const thread = threadTs !== undefined && TS.test(threadTs) ? threadTs : undefined;

    const rawText = typeof field(event, 'text') === 'string' ? (field(event, 'text') as string) : '';
    const mentionsApp = type === 'app_mention' || (bot !== undefined && rawText.trimStart().startsWith(`<@${bot}`));
    const text = unescapeSlack(mentionsApp ? rawText.replace(LEADING_MENTION, '') : rawText);
    const attachments = attachmentsOf(event);
    if (text.trim() === '' && attachments.length === 0) return null;
    const from = senderOf(event);

    return {
      key: `${chatId}:${ts}`,
      message: {
        threadId: chatId,
        text,
        attachments,
        metadata: {
          userId: channel.userId,
          chatTitle: channel.chatTitle,
          updateId: eventId,
          messageId: ts,
          topicId: thread ?? ts,
          ...(thread !== undefined && thread !== ts && { replyToId: thread }),
          ...(from !== undefined && { from }),
          edited: false,
        },
      },
    };
  } catch {
    // Parsed JSON cannot make property reads throw, but an exotic object (a proxy, a getter) could.
    return null;
  }
};

/** The `challenge` of a `url_verification` request, or undefined when the body is none. */
export const challengeOf = (body: unknown): string | undefined => {
  if (!isObject(body) || field(body, 'type') !== 'url_verification') return undefined;
  const challenge = field(body, 'challenge');
  return typeof challenge === 'string' ? challenge : undefined;
};
