import { storableText } from '../text/storable-text.js';
const storable = (value) => (value === undefined ? undefined : storableText(value));
/**
 * The message with every text the platform sent made storable (NUL and lone surrogates →
 * U+FFFD): a chat message is stored (queue, conversation) before it is answered, and the
 * database refuses those characters. Everything else is kept.
 */
export const storableMessage = (message) => ({
    ...message,
    text: storableText(message.text),
    attachments: message.attachments.map((attachment) => ({
        ...attachment,
        fileId: storableText(attachment.fileId),
        ...(attachment.fileName !== undefined && { fileName: storable(attachment.fileName) }),
        ...(attachment.mimeType !== undefined && { mimeType: storable(attachment.mimeType) }),
    })),
    metadata: { ...message.metadata, ...(message.metadata.from !== undefined && { from: storable(message.metadata.from) }) },
});
//# sourceMappingURL=storable-message.js.map