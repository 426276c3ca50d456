import { Lexer, type Token, type Tokens } from 'marked';
import { decodeNumericReferences } from '../markdown/character-references.js';
import { misleads } from '../markdown/link-label.js';
import { trailingBreaks, withoutTrailingBreaks } from '../markdown/trailing-whitespace.js';

/** Escapes text for Telegram's HTML parse mode, which needs exactly `&`, `<` and `>` escaped. */
export const escapeHtml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Escapes an attribute value (written between double quotes). */
const escapeAttribute = (text: string): string => escapeHtml(text).replace(/"/g, '&quot;');

/** The tags this renderer writes; a tag is never opened inside itself (Telegram rejects e.g. <b> inside <b>). */
type Tag = 'b' | 'i' | 's' | 'a' | 'blockquote';
type Open = ReadonlySet<Tag>;

const LANGUAGE = /^[\w#+.-]+$/;
/**
 * Links open http(s) addresses only; anything else stays text. Not Telegram's own tg:// links
 * either: a reply (the model's, or a job summary an agent wrote) could offer
 * `[click](tg://proxy?server=…)`, which asks to route the reader's Telegram through a stranger's proxy.
 */
const LINK_SCHEME = /^https?:\/\//i;
const UNSAFE_IN_HREF = /[\s<>\u0000-\u001f\u007f]/;

const safeHref = (href: string): string | undefined => (LINK_SCHEME.test(href) && !UNSAFE_IN_HREF.test(href) && URL.canParse(href) ? href : undefined);

const textOf = (token: Token): string => escapeHtml(token.raw);

/** `tags` around `inner`, leaving out the ones already open. */
const wrap = (tags: readonly Tag[], inner: readonly Token[] | undefined, open: Open): string => {
  const added = tags.filter((tag) => !open.has(tag));
  const html = inlineHtml(inner ?? [], new Set([...open, ...added]));
  return `${added.map((tag) => `<${tag}>`).join('')}${html}${[...added]
    .reverse()
    .map((tag) => `</${tag}>`)
    .join('')}`;
};

const linkHtml = (token: Tokens.Link, open: Open): string => {
  // A bare URL (GFM autolink literal) stays text: Telegram links it by itself.
  if (token.raw === token.text && !token.raw.startsWith('<')) return textOf(token);
  const href = safeHref(token.href);
  // A text naming another host than the link opens (`[https://github.com/…](https://evil.example)`): as typed, both visible.
  if (href === undefined || open.has('a') || token.text.trim() === '' || misleads(token, href)) return textOf(token);
  return `<a href="${escapeAttribute(href)}">${inlineHtml(token.tokens, new Set([...open, 'a']))}</a>`;
};

const inlineTokenHtml = (token: Token, open: Open): string => {
  switch (token.type) {
    case 'text':
      return 'tokens' in token && token.tokens !== undefined && token.tokens.length > 0
        ? inlineHtml(token.tokens, open)
        : escapeHtml(decodeNumericReferences(token.raw));
    case 'escape':
      return escapeHtml(token.text);
    case 'strong':
      return wrap(['b'], token.tokens, open);
    case 'em': {
      // ***both***: the library reads emphasis around strong; written bold first, as Telegram users know it.
      const only = token.tokens?.length === 1 ? token.tokens[0] : undefined;
      return only?.type === 'strong' ? wrap(['b', 'i'], only.tokens, open) : wrap(['i'], token.tokens, open);
    }
    case 'del':
      // GFM also reads ~single~ tildes as strike-through; only ~~double~~ ones are meant so.
      return token.raw.startsWith('~~') ? wrap(['s'], token.tokens, open) : `~${inlineHtml(token.tokens ?? [], open)}~`;
    case 'codespan':
      // Telegram drops or rejects blank entities: a blank code span stays text.
      return token.text.trim() === '' ? textOf(token) : `<code>${escapeHtml(token.text)}</code>`;
    case 'link':
      return linkHtml(token as Tokens.Link, open);
    case 'image': {
      const href = safeHref((token as Tokens.Image).href);
      return href === undefined || open.has('a') || misleads(token as Tokens.Image, href)
        ? textOf(token)
        : `<a href="${escapeAttribute(href)}">${escapeHtml(token.text || href)}</a>`;
    }
    case 'br':
      return '\n';
    default:
      // HTML written in the Markdown, and anything else: shown as typed.
      return textOf(token);
  }
};

const inlineHtml = (tokens: readonly Token[], open: Open): string => tokens.map((token) => inlineTokenHtml(token, open)).join('');

/**
 * One line of inline Markdown. Lines are formatted one by one: emphasis never spans a line
 * break, so a stray marker cannot format the rest of a paragraph.
 */
const lineHtml = (line: string, open: Open): string => inlineHtml(Lexer.lexInline(line), open);

const linesHtml = (text: string, open: Open): string =>
  text
    .split('\n')
    .map((line) => lineHtml(line, open))
    .join('\n');

/** The line breaks a block's source ends with: kept between blocks, so the layout stays as written. */
const breaksAfter = trailingBreaks;
/** A block's source without the whitespace it ends with. */
const content = (raw: string): string => raw.trimEnd();

/** Indents every line after the first by `width`, except inside the `<pre>` blocks this renderer wrote. */
const indentContinuation = (html: string, width: number): string => {
  const pad = ' '.repeat(width);
  // Text from the Markdown is escaped, so every literal `<pre>` here is one of ours.
  return html
    .split(/(<pre>[\s\S]*?<\/pre>|<pre><code [^>]*>[\s\S]*?<\/code><\/pre>)/)
    .map((segment, index) => (index % 2 === 1 ? segment : segment.replace(/\n/g, `\n${pad}`)))
    .join('');
};

const LIST_MARKER = /^ *(?:[*+-]|\d{1,9}[.)])(?: +|$)/;

const listHtml = (list: Tokens.List, open: Open): string =>
  list.items
    .map((item, index) => {
      const marker = LIST_MARKER.exec(item.raw)?.[0] ?? '';
      const body = withoutTrailingBreaks(blocksHtml(item.tokens, open));
      const last = index === list.items.length - 1;
      return `${escapeHtml(marker)}${indentContinuation(body, marker.length)}${last ? '' : breaksAfter(item.raw) || '\n'}`;
    })
    .join('');

const codeHtml = (code: Tokens.Code): string => {
  const language = code.codeBlockStyle === 'indented' ? '' : (code.lang ?? '').trim().split(/\s+/)[0];
  const text = escapeHtml(code.text);
  return LANGUAGE.test(language) ? `<pre><code class="language-${language}">${text}</code></pre>` : `<pre>${text}</pre>`;
};

const blockHtml = (token: Token, open: Open): string => {
  switch (token.type) {
    case 'space':
      return '';
    case 'code':
      return codeHtml(token as Tokens.Code);
    case 'heading':
      // Telegram has no headings: a heading is a bold line. `#` alone is no heading to show.
      return token.text.trim() === '' ? textOf({ ...token, raw: content(token.raw) }) : wrap(['b'], Lexer.lexInline(token.text), open);
    case 'blockquote': {
      const inner = withoutTrailingBreaks(blocksHtml(token.tokens ?? [], new Set([...open, 'blockquote'])));
      // Telegram does not nest quotes: a quote inside a quote is part of it.
      return open.has('blockquote') ? inner : `<blockquote>${inner}</blockquote>`;
    }
    case 'list':
      return listHtml(token as Tokens.List, open);
    case 'checkbox':
      return textOf(token);
    case 'hr':
    case 'html':
    case 'def':
      return escapeHtml(content(token.raw));
    default:
      // Paragraphs, tables and text: the source's own lines, each with its inline formatting.
      return linesHtml(content(token.raw), open);
  }
};

const blocksHtml = (tokens: readonly Token[], open: Open): string =>
  tokens.map((token) => `${blockHtml(token, open)}${token.type === 'checkbox' ? '' : breaksAfter(token.raw)}`).join('');

/**
 * Converts the Markdown an LLM writes into Telegram's HTML parse mode, with the `marked`
 * library's lexer (CommonMark with GitHub's extensions) and a renderer that writes only tags
 * Telegram accepts:
 *
 * - fenced and indented code blocks → `<pre><code class="language-x">…</code></pre>` (`<pre>…</pre>`
 *   without a language); `code` → `<code>`; their content is escaped and nothing else;
 * - **bold** → `<b>`, *italic* → `<i>`, ***both*** → `<b><i>`, ~~strike~~ → `<s>`, quotes →
 *   `<blockquote>`, `# Heading` lines → bold lines, [text](url) and <url> → `<a href>` for
 *   http(s) addresses only (anything else, tg:// included, and bare URLs, stay text; so does a link
 *   whose text names another host than it opens, isMisleadingLink, shown as typed);
 * - lists, tables and rules stay as written, with their inline formatting; HTML in the
 *   Markdown is shown as typed; `<`, `>` and `&` are escaped everywhere outside tags;
 * - emphasis never spans lines, and a tag is never opened inside itself; the output's tags
 *   are always balanced. Never throws: text the renderer cannot take apart is sent escaped.
 */
export const markdownToTelegramHtml = (markdown: string): string => {
  const source = markdown.replace(/\r\n?/g, '\n');
  try {
    return blocksHtml(new Lexer().blockTokens(source), new Set());
  } catch {
    // Nesting deeper than the call stack (thousands of `> ` or list markers): the text as typed.
    return escapeHtml(source);
  }
};
