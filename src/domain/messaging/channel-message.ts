/** Kinds of attachment a chat message can carry. */
export type AttachmentKind = 'photo' | 'document' | 'voice' | 'audio' | 'video' | 'animation' | 'sticker' | 'video_note';

/** A file attached to a chat message, by the platform's reference (not downloaded yet). */
export interface Attachment {
  readonly kind: AttachmentKind;
  /** The platform's id to download the file with. */
  readonly fileId: string;
  readonly fileName?: string;
  readonly mimeType?: string;
  readonly size?: number;
}

/**
 * A platform's message normalized for the AI layer (SPEC 2.5), the same for every channel:
 * the chat it came from, its text (or caption), its attachments, and where it sits. Every id
 * is the platform's, as a string.
 */
export interface ChannelMessage {
  /** The chat's id on the platform. */
  readonly threadId: string;
  readonly text: string;
  readonly attachments: readonly Attachment[];
  readonly metadata: {
    /** The channel's id (SPEC 2.5 `userId`), e.g. the `<channel>` of `/api/messaging/<channel>/webhook`. */
    readonly userId: string;
    /** The channel's display name (SPEC 2.5 `chatTitle`). */
    readonly chatTitle: string;
    /** The platform's id of the delivery that carried the message, the same on a redelivery (de-duplication). */
    readonly updateId: string;
    /** The message's id in its chat (to acknowledge it, to reply to it). */
    readonly messageId: string;
    /** The thread within the chat (a forum topic, a reply thread), when the message is in one. */
    readonly topicId?: string;
    /** The id of the message this one replies to, when it is a reply. */
    readonly replyToId?: string;
    /** The sender's display name, when known. */
    readonly from?: string;
    /** Whether the message was an edit of an earlier one. */
    readonly edited: boolean;
    /**
     * The group of messages sent together that this one is part of (an album: photos or files
     * sent at once, one message each, the caption on one of them), unique within the channel.
     * The group is answered once, as one message (see album-message.ts).
     */
    readonly albumId?: string;
  };
}

const idText = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : typeof value === 'number' && Number.isFinite(value) ? String(value) : undefined;

/**
 * A message as stored in a chat task, with its ids as strings: tasks stored before ids were
 * strings (an upgrade with messages still queued) carry them as numbers.
 */
export const storedMessage = (message: ChannelMessage): ChannelMessage => {
  const { updateId, messageId, topicId, replyToId, ...rest } = message.metadata as Record<string, unknown> & ChannelMessage['metadata'];
  const topic = idText(topicId);
  const replyTo = idText(replyToId);
  return {
    ...message,
    metadata: {
      ...rest,
      updateId: idText(updateId) ?? '',
      messageId: idText(messageId) ?? '',
      ...(topic !== undefined && { topicId: topic }),
      ...(replyTo !== undefined && { replyToId: replyTo }),
    },
  };
};
