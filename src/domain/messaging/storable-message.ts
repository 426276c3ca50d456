import { storableText } from '../text/storable-text.js';
import type { ChannelMessage } from './channel-message.js';

const storable = (value: string | undefined): string | undefined => (value === undefined ? undefined : storableText(value));

/**
 * The message with every text the platform sent made storable (NUL and lone surrogates →
 * U+FFFD): a chat message is stored (queue, conversation, album) before it is answered, and the
 * database refuses those characters in `text` and `jsonb` alike. That is its text, its
 * attachments, and every id it carries (the chat's, the album's, the message's, the topic's…):
 * an id is the platform's text too, and a forged one would otherwise fail every insert, and so
 * every retry of the delivery. Everything else is kept.
 */
export const storableMessage = (message: ChannelMessage): ChannelMessage => {
  const { metadata } = message;
  return {
    ...message,
    threadId: storableText(message.threadId),
    text: storableText(message.text),
    attachments: message.attachments.map((attachment) => ({
      ...attachment,
      fileId: storableText(attachment.fileId),
      ...(attachment.fileName !== undefined && { fileName: storable(attachment.fileName) }),
      ...(attachment.mimeType !== undefined && { mimeType: storable(attachment.mimeType) }),
    })),
    metadata: {
      ...metadata,
      userId: storableText(metadata.userId),
      chatTitle: storableText(metadata.chatTitle),
      updateId: storableText(metadata.updateId),
      messageId: storableText(metadata.messageId),
      ...(metadata.topicId !== undefined && { topicId: storable(metadata.topicId) }),
      ...(metadata.replyToId !== undefined && { replyToId: storable(metadata.replyToId) }),
      ...(metadata.from !== undefined && { from: storable(metadata.from) }),
      ...(metadata.albumId !== undefined && { albumId: storable(metadata.albumId) }),
    },
  };
};
