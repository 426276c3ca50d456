import { chatTextString, type ChatText } from '../../../ports/messaging-channel.js';
import { headOf } from '../../../domain/text/cut-text.js';

/** A Bot API MessageEntity of the kinds written here: offset and length in UTF-16 code units. */
export interface TelegramEntity {
  readonly type: 'code' | 'pre';
  readonly offset: number;
  readonly length: number;
}

/**
 * `text` as a Bot API message without parse_mode: its parts one after the other (at most `limit`
 * characters, never half of a surrogate pair), and a `code` entity (inline) or a `pre` entity
 * (block) over each verbatim part. Telegram detects no link, mention, bot command, hashtag,
 * e-mail address or phone number inside these, and shows their text as it is: no character of
 * the data is escaped or read as markup. Offsets and lengths are counted in UTF-16 code units,
 * as Telegram counts them and as JavaScript indexes strings (an emoji counts two). A part cut
 * by the limit is marked as far as it goes; an empty one gets no entity (Telegram refuses those).
 */
export const telegramEntities = (text: ChatText, limit: number): { shown: string; entities: TelegramEntity[] } => {
  const shown = headOf(chatTextString(text), limit);
  const entities: TelegramEntity[] = [];
  let offset = 0;
  for (const part of text) {
    const length = Math.min(part.text.length, shown.length - offset);
    if (part.verbatim !== undefined && length > 0) entities.push({ type: part.verbatim === 'block' ? 'pre' : 'code', offset, length });
    offset += part.text.length;
    if (offset >= shown.length) break;
  }
  return { shown, entities };
};
