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
 * A platform update normalized for the AI layer (SPEC 2.5): the chat it came from, its
 * text (or caption), its attachments, and platform data.
 */
export interface ChannelMessage {
  /** The chat's id on the platform, as a string. */
  readonly threadId: string;
  readonly text: string;
  readonly attachments: readonly Attachment[];
  readonly metadata: {
    /** The channel's id, e.g. `telegram`. */
    readonly userId: string;
    /** The channel's display name, e.g. `Telegram`. */
    readonly chatTitle: string;
    /** The platform update's id, for de-duplication. */
    readonly updateId: number;
    /** The message's id in its chat (to react to it, to reply to it). */
    readonly messageId: number;
    /** Forum topic, when the chat has topics. */
    readonly topicId?: number;
    /** The sender's display name, when known. */
    readonly from?: string;
    /** Whether the message was an edit of an earlier one. */
    readonly edited: boolean;
  };
}
