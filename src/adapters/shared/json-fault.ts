/*
 * Where JSON text that JSON.parse refused goes wrong, told by place (`line 3 column 14`) and
 * never by quoting it: the text may be a configuration file or a request's body, and either may
 * hold a secret (a header value or a token written without its quotes). Every scan here is one
 * pass over the text, so a body of megabytes costs milliseconds.
 */

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);

/**
 * Where the first token out of place is, for JSON that JSON.parse refused without saying where
 * ("Unexpected token ']'" after a trailing comma): the offset of that token, by a scan that
 * knows JSON's grammar only as far as needed to find it.
 */
export const firstMisplacedToken = (text: string): number | undefined => {
  // What may come next: a value, a key, a colon, a comma or a closer, or nothing more.
  type Expect = 'value' | 'value-or-close' | 'key' | 'key-or-close' | 'colon' | 'comma-or-close' | 'end';
  const stack: string[] = [];
  let expect: Expect = 'value';
  const afterValue = (): Expect => (stack.length === 0 ? 'end' : 'comma-or-close');
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (WHITESPACE.has(c)) {
      i++;
      continue;
    }
    const at = i;
    if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i += text[i] === '\\' ? 2 : 1);
      if (i >= text.length) return at;
      i++;
      if (expect === 'key' || expect === 'key-or-close') expect = 'colon';
      else if (expect === 'value' || expect === 'value-or-close') expect = afterValue();
      else return at;
    } else if (c === '{' || c === '[') {
      if (expect !== 'value' && expect !== 'value-or-close') return at;
      stack.push(c);
      expect = c === '{' ? 'key-or-close' : 'value-or-close';
      i++;
    } else if (c === '}' || c === ']') {
      const open = c === '}' ? '{' : '[';
      if (stack.at(-1) !== open || !(expect === 'comma-or-close' || expect === (open === '{' ? 'key-or-close' : 'value-or-close'))) return at;
      stack.pop();
      expect = afterValue();
      i++;
    } else if (c === ',') {
      if (expect !== 'comma-or-close') return at;
      expect = stack.at(-1) === '{' ? 'key' : 'value';
      i++;
    } else if (c === ':') {
      if (expect !== 'colon') return at;
      expect = 'value';
      i++;
    } else {
      // A number or a literal: its characters up to the next delimiter.
      if (expect !== 'value' && expect !== 'value-or-close') return at;
      while (i < text.length && !WHITESPACE.has(text[i]) && !',:{}[]"'.includes(text[i])) i++;
      const word = text.slice(at, i);
      // A word that is none (a value written without its quotes, `Bearer abc`; `tru`): where it
      // stops being one of the literals (V8's unexpected token), or its start.
      if (!/^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)$/.test(word)) {
        const literal = ['true', 'false', 'null'].find((candidate) => candidate[0] === word[0]);
        if (literal === undefined) return at;
        let same = 0;
        while (same < word.length && word[same] === literal[same]) same++;
        return at + same;
      }
      expect = afterValue();
    }
  }
  return undefined;
};

/** Whether the token at `at` closes a bracket right after a comma (white space between): `[1, 2,]`. */
export const afterTrailingComma = (text: string, at: number): boolean => {
  if (text[at] !== ']' && text[at] !== '}') return false;
  let i = at - 1;
  while (i >= 0 && WHITESPACE.has(text[i])) i--;
  return text[i] === ',';
};

/**
 * How many characters (code points) `text` holds from `start` up to `end`: a surrogate pair (an
 * emoji) counts one, as an editor's column does, not two as a string's length. One pass.
 */
const codePointsBetween = (text: string, start: number, end: number): number => {
  let count = 0;
  for (let i = start; i < end; i++) {
    const unit = text.charCodeAt(i);
    // The second half of a pair was counted with its first.
    if (!(unit >= 0xdc00 && unit <= 0xdfff && i > start && text.charCodeAt(i - 1) >= 0xd800 && text.charCodeAt(i - 1) <= 0xdbff)) count++;
  }
  return count;
};

/**
 * `line 3 column 14` of `offset` (a UTF-16 index, as JSON.parse and the scans here give it) in
 * `text`: both from 1, the column in characters (code points) as an editor shows it, so an emoji
 * before the fault counts one. One pass over the text up to `offset`.
 */
export const lineAndColumn = (text: string, offset: number): string => {
  let line = 1;
  let lineStart = 0;
  for (let at = text.indexOf('\n'); at !== -1 && at < offset; at = text.indexOf('\n', at + 1)) {
    line++;
    lineStart = at + 1;
  }
  return `line ${line} column ${codePointsBetween(text, lineStart, offset) + 1}`;
};

/**
 * V8's message for a fault it names the position of (`Expected ',' or ']' after array element in
 * JSON at position 9 (line 1 column 10)`, `Unexpected non-whitespace character after JSON at
 * position 2`): its reason, in V8's words, which hold letters and JSON's punctuation only, and
 * the offset.
 */
const POSITIONED = /^([A-Za-z][A-Za-z ',:\]}-]*?)(?: in JSON)? at position (\d+)/;

/**
 * What is wrong with JSON `text` that JSON.parse refused with `error`, and where (`expected ':'
 * after property name at line 1 column 6`, `unexpected character at line 6 column 106`,
 * `unexpected end of the file at line 3 column 1`), without a character of the text: it may
 * hold a secret (a token or a header value written without quotes), which V8 quotes, with the
 * text around it, for an unexpected token. Such a token's place is found by one scan of the text
 * (firstMisplacedToken). `input` names the text in the words for its end (`the body`, `the
 * file`). Undefined when no place is found.
 */
export const jsonFault = (error: unknown, text: string, input: 'body' | 'file'): string | undefined => {
  const message = error instanceof Error ? error.message : '';
  const positioned = POSITIONED.exec(message);
  // An older V8 wrote the token into this form (`Unexpected token a in JSON at position 0`).
  if (positioned !== null && !positioned[1].startsWith('Unexpected token'))
    return `${positioned[1][0].toLowerCase()}${positioned[1].slice(1)} at ${lineAndColumn(text, Number(positioned[2]))}`;
  if (message === 'Unexpected end of JSON input') return `unexpected end of the ${input} at ${lineAndColumn(text, text.length)}`;
  const at = firstMisplacedToken(text);
  if (at === undefined) return undefined;
  return `unexpected character at ${lineAndColumn(text, at)}${afterTrailingComma(text, at) ? ' (a comma before a closing bracket)' : ''}`;
};
