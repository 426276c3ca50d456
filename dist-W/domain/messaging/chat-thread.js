/**
 * The key of a conversation, namespaced by channel: `<channel>:<chat>`, or `<channel>:<chat>:<thread>`
 * for a channel whose threads are conversations of their own. The conversation memory and the
 * source of a job created from the chat use it, so a finished job is announced where it was asked for.
 */
export const chatThreadKey = (thread) => thread.topicId === undefined ? `${thread.channel}:${thread.chatId}` : `${thread.channel}:${thread.chatId}:${thread.topicId}`;
/** The conversation a key names; undefined for a key without a channel. A chat id holding `:` is read whole when no thread follows. */
export const parseChatThread = (key) => {
    const [channel, ...rest] = key.split(':');
    if (channel === '' || rest.length === 0)
        return undefined;
    return rest.length === 2 ? { channel, chatId: rest[0], topicId: rest[1] } : { channel, chatId: rest.join(':') };
};
//# sourceMappingURL=chat-thread.js.map