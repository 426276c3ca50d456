import type { ChannelMessage } from './channel-message.js';

/** Platform ids compared as numbers where both are whole numbers (message ids count up), else as text. */
const byMessageId = (a: ChannelMessage, b: ChannelMessage): number => {
  const [x, y] = [a.metadata.messageId, b.metadata.messageId];
  if (/^\d+$/.test(x) && /^\d+$/.test(y)) return x.length - y.length || (x < y ? -1 : x > y ? 1 : 0);
  return x < y ? -1 : x > y ? 1 : 0;
};

/**
 * The messages of one album (sent together, each with one file) as the one message that is
 * answered: in the order they were sent (by message id, whatever order they arrived in), every
 * item's files, and the text of every item that has one (usually one caption, on any item),
 * each text once. Its ids and place (the chat, the topic, the message replied to) are the first
 * item's. A message repeated among `items` (the same message id) counts once.
 * @throws Error when `items` is empty.
 */
export const albumMessage = (items: readonly ChannelMessage[]): ChannelMessage => {
  const seen = new Set<string>();
  const sorted = [...items].sort(byMessageId).filter((item) => !seen.has(item.metadata.messageId) && seen.add(item.metadata.messageId));
  const first = sorted[0];
  if (first === undefined) throw new Error('An album has at least one message');
  const texts = [...new Set(sorted.map((item) => item.text).filter((text) => text.trim() !== ''))];
  return {
    ...first,
    text: texts.join('\n\n'),
    attachments: sorted.flatMap((item) => item.attachments),
  };
};
