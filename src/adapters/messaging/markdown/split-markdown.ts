import { Lexer, type Token, type Tokens } from 'marked';

/** A stretch of the text that is best kept in one message: a block, or an item of a list. */
interface Block {
  readonly start: number;
  /** Exclusive; trailing whitespace excluded. */
  readonly end: number;
  /** The fenced code block's token, when the stretch is one. */
  readonly code?: Tokens.Code;
  /** Whether the stretch is a block quote. */
  readonly quote?: true;
}

const LEADING_BLANK_LINES = /^(?:[ \t]*\n)+/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** The length of `raw` without the whitespace it ends with (trimEnd: linear, where `/\s+$/` is not). */
const trimmedLength = (raw: string): number => raw.trimEnd().length;

/**
 * The text's blocks as the `marked` lexer reads them (CommonMark), each list split into its
 * items, with their places in the text. When the tokens do not add up to the text (never seen,
 * but the library does not promise it) or the lexer fails, the whole text is one block.
 */
const blocksOf = (text: string): Block[] => {
  let tokens: Token[];
  try {
    tokens = new Lexer().blockTokens(text);
  } catch {
    // Nesting deeper than the call stack (thousands of `> ` or list markers).
    return [{ start: 0, end: text.length }];
  }
  const blocks: Block[] = [];
  let offset = 0;
  const add = (token: Token | Tokens.ListItem, at: number): void => {
    if (token.type === 'space' || trimmedLength(token.raw) === 0) return;
    const code = token.type === 'code' && (token as Tokens.Code).codeBlockStyle !== 'indented' ? (token as Tokens.Code) : undefined;
    blocks.push({ start: at, end: at + trimmedLength(token.raw), ...(code && { code }), ...(token.type === 'blockquote' && { quote: true as const }) });
  };
  for (const token of tokens) {
    const items = token.type === 'list' ? (token as Tokens.List).items : [];
    const itemsText = items.map((item) => item.raw).join('');
    // The items are the list's text, but for the line break at its end.
    if (items.length > 0 && token.raw.startsWith(itemsText) && token.raw.slice(itemsText.length).trim() === '') {
      let at = offset;
      for (const item of items) {
        add(item, at);
        at += item.raw.length;
      }
    } else add(token, offset);
    offset += token.raw.length;
  }
  return offset === text.length ? blocks : [{ start: 0, end: text.length }];
};

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

/** `at`, moved back one when it would fall between the two halves of a surrogate pair. */
const safeCut = (text: string, at: number): number =>
  at > 0 && at < text.length && isHighSurrogate(text.charCodeAt(at - 1)) && isLowSurrogate(text.charCodeAt(at)) ? at - 1 : at;

const isLineSpace = (c: string | undefined): boolean => c === ' ' || c === '\t';

/** Whether the line break at `at` is next to a blank line, i.e. separates paragraphs. */
const nextToBlankLine = (text: string, at: number): boolean => {
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
 * The best cut with its end in (`min`, `max`]: the last blank line, else the last line break,
 * else the last space or tab; undefined when there is none.
 */
const bestBoundary = (text: string, min: number, max: number): Cut | undefined => {
  let line: Cut | undefined;
  let space: Cut | undefined;
  for (let i = Math.min(max, text.length - 1); i > min; i--) {
    const c = text[i];
    if (c === '\n') {
      if (nextToBlankLine(text, i)) return { end: i, resume: i + 1 };
      line ??= { end: i, resume: i + 1 };
    } else if (isLineSpace(c) && line === undefined && space === undefined) {
      let resume = i + 1;
      while (isLineSpace(text[resume])) resume++;
      space = { end: i, resume };
    }
  }
  return line ?? space;
};

/** Cuts text that is not code into parts of at most `limit`: at blank lines, line breaks, spaces, else inside a word. */
const splitText = (text: string, limit: number): string[] => {
  const parts: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    const cut = bestBoundary(rest, rest.search(/\S/), limit) ?? { end: safeCut(rest, limit), resume: safeCut(rest, limit) };
    parts.push(rest.slice(0, cut.end).trimEnd());
    rest = rest.slice(cut.resume).replace(LEADING_BLANK_LINES, '').trimEnd();
  }
  parts.push(rest);
  return parts.filter((part) => part.trim() !== '');
};

/**
 * Cuts a fenced code block longer than `limit` at its own line breaks (inside a line only
 * when the line alone is too long), each part closed with the block's fence and the next
 * opened again with its opening line (language included). A block left open stays open in
 * its last part.
 */
const splitCode = (text: string, code: Tokens.Code, limit: number): string[] => {
  const lines = text.split('\n');
  const opening = lines[0].trimEnd();
  const marker = FENCE.exec(opening)?.[1];
  const header = `${opening}\n`;
  const footer = `\n${marker}`;
  const room = limit - header.length - footer.length;
  if (marker === undefined || room < 2) return splitText(text, limit);
  const contentLines = code.text === '' ? 0 : code.text.split('\n').length;
  const closed = lines.length - 1 > contentLines;
  const content = lines.slice(1, closed ? -1 : undefined);

  const pieces: string[] = [];
  let piece: string | undefined;
  for (const line of content) {
    if (piece !== undefined && piece.length + 1 + line.length <= room) {
      piece += `\n${line}`;
      continue;
    }
    if (piece !== undefined) pieces.push(piece);
    let rest = line;
    while (rest.length > room) {
      const end = safeCut(rest, room);
      pieces.push(rest.slice(0, end));
      rest = rest.slice(end);
    }
    piece = rest;
  }
  if (piece !== undefined) pieces.push(piece);
  return pieces.map((body, index) => `${header}${body}${closed || index < pieces.length - 1 ? footer : ''}`);
};

/** A line of a block quote: its `>` marker, after at most three spaces. */
const QUOTE_LINE = /^ {0,3}>/;
const QUOTE_MARKER = '> ';

/**
 * Cuts a block quote longer than `limit` as text (splitText), each part after the first that
 * does not start with a quote line — the rest of a line cut inside it, or a lazy continuation
 * line — opened again with `> `: otherwise the rest of the line would show outside the quote in
 * the next message, as ordinary text (a job notice quotes its agent's summary so that none of it
 * can pass for the gateway's own lines).
 */
const splitQuote = (text: string, limit: number): string[] => {
  if (limit <= QUOTE_MARKER.length + 1) return splitText(text, limit);
  return splitText(text, limit - QUOTE_MARKER.length).map((part, index) => (index === 0 || QUOTE_LINE.test(part) ? part : `${QUOTE_MARKER}${part}`));
};

/**
 * Splits a Markdown reply into parts of at most `limit` characters (JavaScript string length,
 * UTF-16 code units) for sending as consecutive messages, on the blocks the `marked` lexer
 * finds (paragraphs, headings, code blocks, quotes, tables, list items).
 *
 * Blocks are packed into a part while they fit, with the text between them as written. A
 * block too long for a part of its own is cut: a fenced code block at its own line breaks,
 * closing the fence at the end of each part and opening it again (with its language) at the
 * start of the next; any other block at its last blank line, else line break, else space that
 * fits, and only as a last resort inside a word — never between the two halves of a surrogate
 * pair; a block quote cut inside a line goes on as a quote (`> `) in the next part. So a code
 * block is never cut unless it alone is longer than the limit. Line breaks are `\n` (a `\r\n`
 * becomes `\n`). Each part is stripped of leading blank lines and trailing whitespace (the first
 * line's indentation is kept); parts are never empty, and whitespace-only text gives none.
 */
export const splitMarkdown = (markdown: string, limit: number): string[] => {
  if (!Number.isSafeInteger(limit) || limit < 2) throw new RangeError(`splitMarkdown: limit must be an integer of at least 2, got ${limit}`);
  const text = markdown.replace(/\r\n?/g, '\n').replace(LEADING_BLANK_LINES, '').trimEnd();
  if (text.length <= limit) return text.trim() === '' ? [] : [text];

  const parts: string[] = [];
  let current = '';
  let previousEnd = 0;
  const flush = (): void => {
    const part = current.replace(LEADING_BLANK_LINES, '').trimEnd();
    if (part.trim() !== '') parts.push(part);
    current = '';
  };
  for (const block of blocksOf(text)) {
    const between = text.slice(previousEnd, block.start);
    const body = text.slice(block.start, block.end);
    previousEnd = block.end;
    if (current !== '' && current.length + between.length + body.length <= limit) {
      current += between + body;
      continue;
    }
    flush();
    if (body.length <= limit) {
      current = body;
      continue;
    }
    const pieces = block.code !== undefined ? splitCode(body, block.code, limit) : block.quote === true ? splitQuote(body, limit) : splitText(body, limit);
    parts.push(...pieces.slice(0, -1));
    current = pieces.at(-1) ?? '';
  }
  flush();
  return parts;
};
