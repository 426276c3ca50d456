/** Telegram's `sendMessage` limit on a message's text, in characters (UTF-16 code units). */
export const TELEGRAM_MESSAGE_LIMIT = 4096;

/** A fenced code block of the text being split, by index. */
interface Fence {
  /** Start of the opening fence line. */
  readonly start: number;
  /** The opening fence line itself (e.g. "```ts"), to reopen the block in the next part. */
  readonly openLine: string;
  /** The backticks that close it. */
  readonly marker: string;
  /** Start of the block's content: just after the opening line's line break. */
  readonly contentStart: number;
  /** End of the content: the line break before the closing fence, or the end of the text when unclosed. */
  readonly contentEnd: number;
  /** Just after the closing fence line (before its line break), or the end of the text when unclosed. */
  readonly end: number;
}

const OPENING_FENCE = /^ {0,3}(`{3,})[^`]*$/;
const CLOSING_FENCE = /^ {0,3}(`{3,})[ \t]*$/;

/**
 * The fenced code blocks of `text` that start up to `until`, in order. A block left open runs
 * to the end of the text. The line starting at `continuation` (if any) is the rest of a line
 * cut in the previous part, so it neither opens nor closes a fence.
 */
const findFences = (text: string, continuation: number | undefined, until: number): Fence[] => {
  const fences: Fence[] = [];
  let open: { start: number; openLine: string; marker: string; contentStart: number } | undefined;
  for (let lineStart = 0; lineStart <= text.length; ) {
    const newline = text.indexOf('\n', lineStart);
    const lineEnd = newline === -1 ? text.length : newline;
    if (open === undefined && lineStart > until) break;
    const line = lineStart === continuation ? '' : text.slice(lineStart, lineEnd).replace(/\r$/, '');
    if (open === undefined) {
      const opening = OPENING_FENCE.exec(line);
      if (opening) open = { start: lineStart, openLine: line.trimEnd(), marker: opening[1], contentStart: Math.min(lineEnd + 1, text.length) };
    } else {
      const closing = CLOSING_FENCE.exec(line);
      if (closing && closing[1].length >= open.marker.length) {
        fences.push({ ...open, contentEnd: Math.max(open.contentStart, lineStart - 1), end: lineStart + line.length });
        open = undefined;
      }
    }
    if (newline === -1) break;
    lineStart = newline + 1;
  }
  if (open) fences.push({ ...open, contentEnd: text.length, end: text.length });
  return fences;
};

/** Whether `index` lies inside one of `fences` (sorted, disjoint), from its opening line to its closing one. */
const insideFence = (fences: readonly Fence[], index: number): boolean => {
  let low = 0;
  let high = fences.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (fences[middle].end <= index) low = middle + 1;
    else if (fences[middle].start > index) high = middle - 1;
    else return true;
  }
  return false;
};

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

/** `at`, moved back one when it would fall between the two halves of a surrogate pair. */
const safeCut = (text: string, at: number): number =>
  at > 0 && at < text.length && isHighSurrogate(text.charCodeAt(at - 1)) && isLowSurrogate(text.charCodeAt(at)) ? at - 1 : at;

const isLineSpace = (c: string | undefined): boolean => c === ' ' || c === '\t' || c === '\r';

/** Whether the line break at `at` is next to a blank line, i.e. separates paragraphs. */
const startsOrEndsBlankLine = (text: string, at: number): boolean => {
  let after = at + 1;
  while (isLineSpace(text[after])) after++;
  if (text[after] === '\n') return true;
  let before = at - 1;
  while (isLineSpace(text[before])) before--;
  return text[before] === '\n';
};

/** Where a part ends (exclusive) and where the rest resumes. */
interface Cut {
  readonly end: number;
  readonly resume: number;
}

/**
 * The best cut with its end in (`min`, `max`], allowed by `allowed`: the last paragraph break
 * (a blank line), else the last line break, else the last space or tab; undefined when none.
 */
const bestBoundary = (text: string, min: number, max: number, allowed: (index: number) => boolean): Cut | undefined => {
  let line: Cut | undefined;
  let space: Cut | undefined;
  for (let i = Math.min(max, text.length - 1); i > min; i--) {
    const c = text[i];
    if (c === '\n') {
      if (!allowed(i)) continue;
      if (startsOrEndsBlankLine(text, i)) return { end: i, resume: i + 1 };
      line ??= { end: i, resume: i + 1 };
    } else if ((c === ' ' || c === '\t') && line === undefined && space === undefined && allowed(i)) {
      let resume = i + 1;
      while (text[resume] === ' ' || text[resume] === '\t') resume++;
      space = { end: i, resume };
    }
  }
  return line ?? space;
};

const LEADING_BLANK_LINES = /^(?:[ \t]*\r?\n)+/;

/**
 * Splits a reply into parts of at most `limit` characters (JavaScript string length, which
 * is what Telegram counts), for sending as consecutive messages.
 *
 * Cuts at the last paragraph break (blank line) that fits, else the last line break, else
 * the last space, and only as a last resort inside a word — never between the two halves of
 * a surrogate pair. A fenced code block (```) that fits within the limit is never cut: the
 * part ends before it. A block longer than the limit is cut at its own line breaks, closing
 * the fence at the end of the part and reopening it (with its language) at the start of the
 * next. Each part is stripped of leading blank lines and trailing whitespace (the first
 * line's indentation is kept); parts are never empty, and whitespace-only text gives none.
 */
export const splitReply = (text: string, limit: number = TELEGRAM_MESSAGE_LIMIT): string[] => {
  if (!Number.isSafeInteger(limit) || limit < 2) throw new RangeError(`splitReply: limit must be an integer of at least 2, got ${limit}`);
  const parts: string[] = [];
  let rest = text.replace(LEADING_BLANK_LINES, '').trimEnd();
  let continuation: number | undefined;
  while (rest !== '') {
    if (rest.length <= limit) {
      parts.push(rest);
      break;
    }
    // The part may not be whitespace only: its end must lie beyond the first visible character.
    const firstVisible = rest.search(/\S/);
    const fences = findFences(rest, continuation, limit);
    const outsideFences = (index: number): boolean => !insideFence(fences, index);
    const cut = bestBoundary(rest, firstVisible, limit, outsideFences);
    const leading = fences[0];
    const closing = leading === undefined ? '' : `\n${leading.marker}`;
    const canCutInside =
      cut === undefined && leading !== undefined && leading.start <= firstVisible && leading.end > limit && leading.contentStart + closing.length + 2 <= limit;

    let next: string;
    if (cut !== undefined) {
      parts.push(rest.slice(0, cut.end).trimEnd());
      next = rest.slice(cut.resume);
      continuation = rest[cut.end] === '\n' ? undefined : 0;
    } else if (canCutInside) {
      // The rest opens with a code block too long for one part: cut inside it, then close and reopen the fence.
      const room = limit - closing.length;
      const visibleContent = leading.contentStart + rest.slice(leading.contentStart).search(/\S/);
      const inside = (index: number): boolean => index <= leading.contentEnd;
      const boundary = bestBoundary(rest, Math.max(visibleContent, leading.contentStart), room, inside);
      const end = boundary?.end ?? safeCut(rest, room);
      parts.push(`${rest.slice(0, end).trimEnd()}${closing}`);
      if (end >= leading.contentEnd) {
        next = rest.slice(leading.end); // the whole content fitted: the block is done
        continuation = undefined;
      } else {
        const remainder = rest.slice(boundary?.resume ?? end);
        const content = remainder.replace(LEADING_BLANK_LINES, '');
        const midLine = rest[end] !== '\n' && content.length === remainder.length;
        next = `${leading.openLine}\n${content}`;
        continuation = midLine ? leading.openLine.length + 1 : undefined;
      }
    } else {
      const end = safeCut(rest, limit);
      parts.push(rest.slice(0, end).trimEnd());
      next = rest.slice(end);
      continuation = 0;
    }
    const stripped = next.replace(LEADING_BLANK_LINES, '');
    if (stripped.length !== next.length) continuation = undefined;
    rest = stripped.trimEnd();
  }
  return parts.filter((part) => part.trim() !== '');
};
