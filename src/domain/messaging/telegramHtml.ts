/** Escapes text for Telegram's HTML parse mode, which needs exactly `&`, `<` and `>` escaped. */
export const escapeHtml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Escapes an attribute value (written between double quotes). */
const escapeAttribute = (text: string): string => escapeHtml(text).replace(/"/g, '&quot;');

type Format = 'b' | 'i' | 's';

interface Context {
  /** Formats already open around the text: not opened again (Telegram rejects e.g. <b> inside <b>). */
  readonly open: ReadonlySet<Format>;
  /** Whether links may start here (not inside a link's own text). */
  readonly links: boolean;
  /**
   * Per marker run and range end, the earliest position from which no closing run was found:
   * a later opener of the same kind will not find one either. Keeps the work on a line with
   * many unmatched markers linear instead of quadratic.
   */
  readonly unclosed: Map<string, number>;
}

const ASCII_PUNCTUATION = /[!-/:-@[-`{-~]/;
const PUNCTUATION = /[\p{P}\p{S}]/u;
const WHITESPACE = /\s/u;

/** The code point before `at` (a whole surrogate pair when there is one), or undefined at the start. */
const charBefore = (s: string, at: number): string | undefined => {
  if (at <= 0) return undefined;
  const code = s.charCodeAt(at - 1);
  return code >= 0xdc00 && code <= 0xdfff && at >= 2 ? s.slice(at - 2, at) : s[at - 1];
};
const charAt = (s: string, at: number): string | undefined => (at < s.length ? String.fromCodePoint(s.codePointAt(at)!) : undefined);
/** The start and the end of a line count as whitespace (CommonMark). */
const isSpace = (c: string | undefined): boolean => c === undefined || WHITESPACE.test(c);
const isPunctuation = (c: string | undefined): boolean => c !== undefined && PUNCTUATION.test(c);
const isAlphanumeric = (c: string | undefined): boolean => c !== undefined && /[\p{L}\p{N}]/u.test(c);

const runLength = (s: string, at: number, end: number): number => {
  let i = at;
  while (i < end && s[i] === s[at]) i++;
  return i - at;
};

/** A delimiter run's flanking (CommonMark): whether it can open and close emphasis. */
const flanking = (s: string, at: number, length: number): { canOpen: boolean; canClose: boolean } => {
  const before = charBefore(s, at);
  const after = charAt(s, at + length);
  const left = !isSpace(after) && (!isPunctuation(after) || isSpace(before) || isPunctuation(before));
  const right = !isSpace(before) && (!isPunctuation(before) || isSpace(after) || isPunctuation(after));
  if (s[at] !== '_') return { canOpen: left, canClose: right };
  // `_` inside a word (snake_case_words) neither opens nor closes.
  return { canOpen: left && (!right || isPunctuation(before)), canClose: right && (!left || isPunctuation(after)) };
};

/** An inline code span at `at`: its content and where it ends, or undefined when the backticks are not closed. */
const codeSpan = (s: string, at: number, end: number): { content: string; end: number } | undefined => {
  const length = runLength(s, at, end);
  for (let i = at + length; i < end; ) {
    if (s[i] !== '`') {
      i++;
      continue;
    }
    const closing = runLength(s, i, end);
    if (closing === length) {
      let content = s.slice(at + length, i);
      if (content.length >= 2 && content.startsWith(' ') && content.endsWith(' ') && content.trim() !== '') content = content.slice(1, -1);
      return { content, end: i + closing };
    }
    i += closing;
  }
  return undefined;
};

const LINK_TARGET = /https?:\/\/[^\s<>()]/iy;
const LINK_TAIL = /[ \t]*(?:"[^"\n]*"|'[^'\n]*')?[ \t]*\)/y;
/** Bounds on a link's text and address, so that lines full of brackets stay cheap to scan. */
const MAX_LINK_TEXT = 1000;
const MAX_HREF = 2048;

/** A `[text](http…)` link at `at`, or undefined. */
const link = (s: string, at: number, end: number): { textStart: number; textEnd: number; href: string; end: number } | undefined => {
  let depth = 0;
  let i = at;
  const textLimit = Math.min(end, at + MAX_LINK_TEXT);
  for (; i < textLimit; i++) {
    const c = s[i];
    if (c === '\\') i++;
    else if (c === '`') {
      const span = codeSpan(s, i, textLimit);
      i = span ? span.end - 1 : i + runLength(s, i, textLimit) - 1;
    } else if (c === '[') depth++;
    else if (c === ']' && --depth === 0) break;
  }
  if (i >= textLimit || s[i + 1] !== '(') return undefined;
  const textEnd = i;
  if (s.slice(at + 1, textEnd).trim() === '') return undefined;
  let j = i + 2;
  while (s[j] === ' ') j++;
  const hrefStart = j;
  LINK_TARGET.lastIndex = hrefStart;
  if (!LINK_TARGET.test(s)) return undefined;
  let parens = 0;
  const hrefLimit = Math.min(end, hrefStart + MAX_HREF);
  for (; j < hrefLimit; j++) {
    const c = s[j];
    if (s.charCodeAt(j) <= 0x20 || c === '<' || c === '>') break;
    if (c === '(') parens++;
    else if (c === ')' && parens-- === 0) break;
  }
  const href = s.slice(hrefStart, j);
  // An optional "title" is accepted and dropped: Telegram links have none.
  LINK_TAIL.lastIndex = j;
  const tail = LINK_TAIL.exec(s);
  if (!tail || LINK_TAIL.lastIndex > end) return undefined;
  return { textStart: at + 1, textEnd, href, end: LINK_TAIL.lastIndex };
};

/** A `<http…>` autolink at `at`, or undefined. */
const AUTOLINK = /<(https?:\/\/[^\s<>]+)>/iy;
const autolink = (s: string, at: number, end: number): { href: string; end: number } | undefined => {
  AUTOLINK.lastIndex = at;
  const match = AUTOLINK.exec(s);
  return match && AUTOLINK.lastIndex <= end ? { href: match[1], end: AUTOLINK.lastIndex } : undefined;
};

/**
 * A bare URL at `at` (GitHub's autolink literal rules for the end): kept as plain text so that
 * the `_` and `*` inside it are not read as emphasis. Telegram links it by itself.
 */
const BARE_URL = /https?:\/\/[^\s<>`]+/iy;
const bareUrl = (s: string, at: number, end: number): number | undefined => {
  if (isAlphanumeric(charBefore(s, at))) return undefined;
  BARE_URL.lastIndex = at;
  const match = BARE_URL.exec(s);
  if (!match) return undefined;
  let url = match[0].slice(0, end - at);
  for (;;) {
    const trimmed = url.replace(/[?!.,:;*_~'"]+$/, '');
    const unbalanced = trimmed.endsWith(')') && (trimmed.match(/\(/g) ?? []).length < (trimmed.match(/\)/g) ?? []).length;
    const next = unbalanced ? trimmed.slice(0, -1) : trimmed;
    if (next === url) break;
    url = next;
  }
  return /^https?:\/\/./i.test(url) ? at + url.length : undefined;
};

/** Where an atom (escape, code span, link, bare URL) starting at `at` ends; emphasis never reaches inside one. */
const atomEnd = (s: string, at: number, end: number, context: Context): number | undefined => {
  const c = s[at];
  if (c === '\\' && at + 1 < end && ASCII_PUNCTUATION.test(s[at + 1])) return at + 2;
  if (c === '`') return codeSpan(s, at, end)?.end ?? at + runLength(s, at, end);
  if (c === '[' && context.links) return link(s, at, end)?.end;
  if (c === '<' && context.links) return autolink(s, at, end)?.end;
  if (c === 'h' || c === 'H') return bareUrl(s, at, end);
  return undefined;
};

const EMPHASIS: Record<string, Partial<Record<number, readonly Format[]>>> = {
  '*': { 1: ['i'], 2: ['b'], 3: ['b', 'i'] },
  _: { 1: ['i'], 2: ['b'], 3: ['b', 'i'] },
  '~': { 2: ['s'] },
};

/** The closing run for the emphasis opened at `at` with `length` markers, or undefined. */
const findCloser = (s: string, at: number, length: number, end: number, context: Context): number | undefined => {
  const marker = s[at];
  const key = `${marker}${length}@${end}`;
  if (at >= (context.unclosed.get(key) ?? Infinity)) return undefined;
  for (let i = at + length; i < end; ) {
    const atom = atomEnd(s, i, end, context);
    if (atom !== undefined) {
      i = atom;
      continue;
    }
    if (s[i] !== marker) {
      i++;
      continue;
    }
    const run = runLength(s, i, end);
    if (run === length && i > at + length && flanking(s, i, run).canClose) return i;
    i += run;
  }
  context.unclosed.set(key, Math.min(at, context.unclosed.get(key) ?? Infinity));
  return undefined;
};

/** Renders the inline Markdown of `s` between `start` and `end` as Telegram HTML. */
const renderInline = (s: string, start: number, end: number, context: Context): string => {
  let out = '';
  let i = start;
  while (i < end) {
    const c = s[i];
    if (c === '\\' && i + 1 < end && ASCII_PUNCTUATION.test(s[i + 1])) {
      out += escapeHtml(s[i + 1]);
      i += 2;
      continue;
    }
    if (c === '`') {
      const span = codeSpan(s, i, end);
      if (span) {
        // Telegram drops or rejects blank entities: a blank code span stays text.
        out += span.content.trim() === '' ? escapeHtml(s.slice(i, span.end)) : `<code>${escapeHtml(span.content)}</code>`;
        i = span.end;
      } else {
        const run = runLength(s, i, end);
        out += s.slice(i, i + run);
        i += run;
      }
      continue;
    }
    if (c === '[' && context.links) {
      const found = link(s, i, end);
      if (found) {
        const text = renderInline(s, found.textStart, found.textEnd, { ...context, links: false });
        out += `<a href="${escapeAttribute(found.href)}">${text}</a>`;
        i = found.end;
        continue;
      }
    }
    if (c === '<' && context.links) {
      const found = autolink(s, i, end);
      if (found) {
        out += `<a href="${escapeAttribute(found.href)}">${escapeHtml(found.href)}</a>`;
        i = found.end;
        continue;
      }
    }
    if (c === 'h' || c === 'H') {
      const urlEnd = bareUrl(s, i, end);
      if (urlEnd !== undefined) {
        out += escapeHtml(s.slice(i, urlEnd));
        i = urlEnd;
        continue;
      }
    }
    if (c === '*' || c === '_' || c === '~') {
      const run = runLength(s, i, end);
      const formats = EMPHASIS[c][run];
      const closer = formats && flanking(s, i, run).canOpen ? findCloser(s, i, run, end, context) : undefined;
      if (formats && closer !== undefined) {
        const inner: Context = { ...context, open: new Set([...context.open, ...formats]) };
        const html = renderInline(s, i + run, closer, inner);
        // A format already open around this text is not opened again (Telegram rejects <b> inside <b>).
        const tags = formats.filter((format) => !context.open.has(format));
        out += `${tags.map((t) => `<${t}>`).join('')}${html}${[...tags].reverse().map((t) => `</${t}>`).join('')}`;
        i = closer + run;
      } else {
        out += s.slice(i, i + run);
        i += run;
      }
      continue;
    }
    out += escapeHtml(c);
    i++;
  }
  return out;
};

const inline = (text: string, open: readonly Format[] = []): string =>
  renderInline(text, 0, text.length, { open: new Set(open), links: true, unclosed: new Map() });

const OPENING_FENCE = /^ {0,3}(`{3,})[ \t]*([^`]*)$/;
const CLOSING_FENCE = /^ {0,3}(`{3,})[ \t]*$/;
const HEADING = /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const LANGUAGE = /^[\w#+.-]+$/;

/**
 * Converts the Markdown an LLM typically writes into Telegram's HTML parse mode.
 *
 * - fenced code blocks → `<pre><code class="language-x">…</code></pre>` (`<pre>…</pre>` without a
 *   language); their content is escaped and nothing else. A fence left open runs to the end.
 * - `code` → `<code>`, **bold** / __bold__ → `<b>`, *italic* / _italic_ → `<i>`,
 *   ***both*** → `<b><i>`, ~~strike~~ → `<s>`, [text](http…) and <http…> → `<a href>`,
 *   `# Heading` lines → `<b>Heading</b>`; backslash escapes (`\*`) give the character itself.
 * - emphasis follows CommonMark's flanking rules, so `snake_case_words`, `* list items` and
 *   `2 * 3` stay as they are, and `_`/`*` inside bare URLs are never formatting. Markers without
 *   a matching partner, and emphasis spanning lines, are left as text.
 * - everything else is escaped; Markdown that Telegram cannot show (lists, quotes, tables,
 *   rules) is left as text. The output's tags are always balanced.
 */
export const markdownToTelegramHtml = (markdown: string): string => {
  const lines = markdown.split('\n').map((line) => line.replace(/\r$/, ''));
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const opening = OPENING_FENCE.exec(lines[i]);
    if (opening) {
      const code: string[] = [];
      let j = i + 1;
      for (; j < lines.length; j++) {
        const closing = CLOSING_FENCE.exec(lines[j]);
        if (closing && closing[1].length >= opening[1].length) break;
        code.push(lines[j]);
      }
      const language = opening[2].trim().split(/\s+/)[0];
      const content = escapeHtml(code.join('\n'));
      out.push(LANGUAGE.test(language) ? `<pre><code class="language-${language}">${content}</code></pre>` : `<pre>${content}</pre>`);
      i = j;
      continue;
    }
    const heading = HEADING.exec(lines[i]);
    if (heading && heading[1].trim() !== '') {
      out.push(`<b>${inline(heading[1], ['b'])}</b>`);
      continue;
    }
    out.push(inline(lines[i]));
  }
  return out.join('\n');
};
