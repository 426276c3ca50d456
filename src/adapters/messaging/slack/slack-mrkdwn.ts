import { Lexer, type Token, type Tokens } from 'marked';
import { decodeNumericReferences } from '../markdown/character-references.js';
import { misleads } from '../markdown/link-label.js';
import { trailingBreaks, withoutTrailingBreaks } from '../markdown/trailing-whitespace.js';

/** Escapes text for Slack: exactly `&`, `<` and `>` (the characters of its control sequences). */
export const escapeSlack = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Slack's own escapes, undone (user text in events arrives escaped). */
export const unescapeSlack = (text: string): string => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** The markers this renderer writes; one is never opened inside itself. */
type Mark = '*' | '_' | '~';
type Open = ReadonlySet<Mark>;

/** Slack links http(s) and mailto addresses; anything else stays text. */
const LINK_SCHEME = /^(?:https?:\/\/|mailto:)/i;
/** Characters that would end a `<url|text>` sequence early, or that Slack would not read as part of a URL. */
const UNSAFE_IN_URL = /[\s<>|\u0000-\u001f\u007f]/;

const safeUrl = (href: string): string | undefined => (LINK_SCHEME.test(href) && !UNSAFE_IN_URL.test(href) && URL.canParse(href) ? href : undefined);

const textOf = (token: Token): string => escapeSlack(token.raw);

/** `marks` around `inner`, leaving out the ones already open; nothing around blank text (Slack would show the markers). */
const wrap = (marks: readonly Mark[], inner: readonly Token[] | undefined, open: Open): string => {
  const added = marks.filter((mark) => !open.has(mark));
  const text = inlineMrkdwn(inner ?? [], new Set([...open, ...added]));
  if (text.trim() === '') return text;
  return `${added.join('')}${text}${[...added].reverse().join('')}`;
};

const linkMrkdwn = (token: Tokens.Link): string => {
  // A bare URL (GFM autolink literal) stays text: Slack links it by itself.
  if (token.raw === token.text && !token.raw.startsWith('<')) return textOf(token);
  const url = safeUrl(token.href);
  // A text naming another host than the link opens (`[https://github.com/…](https://evil.example)`): as typed, both visible.
  if (url === undefined || token.text.trim() === '' || misleads(token, url)) return textOf(token);
  // The label cannot carry a `|` or formatting markers that span the sequence: plain, escaped.
  const label = escapeSlack(token.text).replace(/\|/g, '¦');
  const address = url.replace(/&/g, '&amp;');
  return label === url ? `<${address}>` : `<${address}|${label}>`;
};

const inlineTokenMrkdwn = (token: Token, open: Open): string => {
  switch (token.type) {
    case 'text':
      return 'tokens' in token && token.tokens !== undefined && token.tokens.length > 0
        ? inlineMrkdwn(token.tokens, open)
        : escapeSlack(decodeNumericReferences(token.raw));
    case 'escape':
      return escapeSlack(token.text);
    case 'strong':
      return wrap(['*'], token.tokens, open);
    case 'em': {
      const only = token.tokens?.length === 1 ? token.tokens[0] : undefined;
      return only?.type === 'strong' ? wrap(['*', '_'], only.tokens, open) : wrap(['_'], token.tokens, open);
    }
    case 'del':
      // GFM also reads ~single~ tildes as strike-through; only ~~double~~ ones are meant so.
      return token.raw.startsWith('~~') ? wrap(['~'], token.tokens, open) : textOf(token);
    case 'codespan':
      return token.text.trim() === '' || token.text.includes('`') ? textOf(token) : `\`${escapeSlack(token.text)}\``;
    case 'link':
      return linkMrkdwn(token as Tokens.Link);
    case 'image': {
      const url = safeUrl((token as Tokens.Image).href);
      if (url === undefined || misleads(token as Tokens.Image, url)) return textOf(token);
      const label = escapeSlack(token.text).replace(/\|/g, '¦');
      const address = url.replace(/&/g, '&amp;');
      return label.trim() === '' ? `<${address}>` : `<${address}|${label}>`;
    }
    case 'br':
      return '\n';
    default:
      // HTML written in the Markdown, and anything else: shown as typed.
      return textOf(token);
  }
};

const inlineMrkdwn = (tokens: readonly Token[], open: Open): string => tokens.map((token) => inlineTokenMrkdwn(token, open)).join('');

/** One line of inline Markdown: emphasis never spans a line break (Slack's does not either). */
const lineMrkdwn = (line: string, open: Open): string => inlineMrkdwn(Lexer.lexInline(line), open);

const linesMrkdwn = (text: string, open: Open): string =>
  text
    .split('\n')
    .map((line) => lineMrkdwn(line, open))
    .join('\n');

/** The line breaks a block's source ends with: kept between blocks, so the layout stays as written. */
const breaksAfter = trailingBreaks;
/** A block's source without the whitespace it ends with. */
const content = (raw: string): string => raw.trimEnd();

const LIST_MARKER = /^( *)([*+-]|\d{1,9}[.)])( +|$)/;

/** Continuation lines indented under their item's text, except inside code blocks (written as ``` lines). */
const indentContinuation = (text: string, width: number): string => {
  const pad = ' '.repeat(width);
  let inCode = false;
  return text
    .split('\n')
    .map((line, index) => {
      const fence = line.startsWith('```');
      const out = index === 0 || inCode ? line : `${pad}${line}`;
      if (fence) inCode = !inCode;
      return out;
    })
    .join('\n');
};

const listMrkdwn = (list: Tokens.List, open: Open): string =>
  list.items
    .map((item, index) => {
      const match = LIST_MARKER.exec(item.raw);
      // Bullets as Slack shows them; numbers as written.
      const marker = match ? `${match[1]}${/[*+-]/.test(match[2]) ? '•' : match[2]}${match[3] || ' '}` : '';
      const body = withoutTrailingBreaks(blocksMrkdwn(item.tokens, open));
      const last = index === list.items.length - 1;
      return `${marker}${indentContinuation(body, marker.length)}${last ? '' : breaksAfter(item.raw) || '\n'}`;
    })
    .join('');

/** A code block: Slack has no languages; the content is escaped and nothing else. */
const codeMrkdwn = (code: Tokens.Code): string => `\`\`\`\n${escapeSlack(code.text)}\n\`\`\``;

const blockMrkdwn = (token: Token, open: Open): string => {
  switch (token.type) {
    case 'space':
      return '';
    case 'code':
      return codeMrkdwn(token as Tokens.Code);
    case 'heading':
      // Slack has no headings: a heading is a bold line. `#` alone is no heading to show.
      return token.text.trim() === '' ? escapeSlack(content(token.raw)) : wrap(['*'], Lexer.lexInline(token.text), open);
    case 'blockquote': {
      const inner = withoutTrailingBreaks(blocksMrkdwn(token.tokens ?? [], open));
      return inner
        .split('\n')
        .map((line) => `> ${line}`.trimEnd())
        .join('\n');
    }
    case 'list':
      return listMrkdwn(token as Tokens.List, open);
    case 'checkbox':
      return textOf(token);
    case 'hr':
      return '───';
    case 'html':
    case 'def':
      return escapeSlack(content(token.raw));
    default:
      // Paragraphs, tables and text: the source's own lines, each with its inline formatting.
      return linesMrkdwn(content(token.raw), open);
  }
};

const blocksMrkdwn = (tokens: readonly Token[], open: Open): string =>
  tokens.map((token) => `${blockMrkdwn(token, open)}${token.type === 'checkbox' ? '' : breaksAfter(token.raw)}`).join('');

/**
 * Converts the Markdown an LLM writes into Slack's mrkdwn, with the `marked` library's lexer
 * (CommonMark with GitHub's extensions), as the Telegram adapter converts it to HTML:
 *
 * - fenced and indented code blocks → ```` ``` ```` blocks (no language: Slack has none);
 *   `code` → `` `code` ``; their content is escaped and nothing else;
 * - **bold** → `*bold*`, *italic* → `_italic_`, ***both*** → `*_both_*`, ~~strike~~ → `~strike~`,
 *   `# Heading` lines → bold lines, quotes → `>` lines, bullets → `•`, rules → a line;
 * - [text](url) and <url> → `<url|text>` for http(s) and mailto addresses only (anything else,
 *   and bare URLs, stay text, which Slack links by itself); a link whose text names another
 *   host than it opens (isMisleadingLink) is shown as typed, its text and address both visible;
 * - `&`, `<` and `>` are escaped everywhere (`&amp;`, `&lt;`, `&gt;`), so no text of the reply
 *   becomes a mention, a channel link or a broadcast (`<!channel>`);
 * - emphasis never spans lines, and a marker is never opened inside itself. Never throws: text
 *   the lexer cannot take apart is sent escaped.
 */
export const markdownToMrkdwn = (markdown: string): string => {
  const source = markdown.replace(/\r\n?/g, '\n');
  try {
    return blocksMrkdwn(new Lexer().blockTokens(source), new Set());
  } catch {
    // Nesting deeper than the call stack (thousands of `> ` or list markers): the text as typed.
    return escapeSlack(source);
  }
};
