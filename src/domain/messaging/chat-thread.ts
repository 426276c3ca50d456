/** A conversation of the chat agent on a channel: the chat, and the thread within it where threads are conversations of their own. */
export interface ChatThread {
  readonly channel: string;
  readonly chatId: string;
  readonly topicId?: string;
}

/**
 * The key of a conversation, namespaced by channel: `<channel>:<chat>`, or `<channel>:<chat>:<thread>`
 * for a channel whose threads are conversations of their own. The conversation memory and the
 * source of a job created from the chat use it, so a finished job is announced where it was asked for.
 */
export const chatThreadKey = (thread: ChatThread): string =>
  thread.topicId === undefined ? `${thread.channel}:${thread.chatId}` : `${thread.channel}:${thread.chatId}:${thread.topicId}`;

/** The conversation a key names; undefined for a key without a channel. A chat id holding `:` is read whole when no thread follows. */
export const parseChatThread = (key: string): ChatThread | undefined => {
  const [channel, ...rest] = key.split(':');
  if (channel === '' || rest.length === 0) return undefined;
  return rest.length === 2 ? { channel, chatId: rest[0], topicId: rest[1] } : { channel, chatId: rest.join(':') };
};
