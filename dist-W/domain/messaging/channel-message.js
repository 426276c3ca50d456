const idText = (value) => typeof value === 'string' ? value : typeof value === 'number' && Number.isFinite(value) ? String(value) : undefined;
/**
 * A message as stored in a chat task, with its ids as strings: tasks stored before ids were
 * strings (an upgrade with messages still queued) carry them as numbers.
 */
export const storedMessage = (message) => {
    const { updateId, messageId, topicId, replyToId, ...rest } = message.metadata;
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
//# sourceMappingURL=channel-message.js.map