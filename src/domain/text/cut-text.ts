/** The first `length` characters, one fewer when the last would be half of a surrogate pair. */
export const headOf = (text: string, length: number): string => {
  const cut = text.slice(0, length);
  return /[\uD800-\uDBFF]$/.test(cut) && /^[\uDC00-\uDFFF]/.test(text.slice(length)) ? cut.slice(0, -1) : cut;
};

/** The last `length` characters, one fewer when the first would be half of a surrogate pair. */
export const tailOf = (text: string, length: number): string => {
  if (length <= 0) return '';
  const cut = text.slice(-length);
  return /^[\uDC00-\uDFFF]/.test(cut) && /[\uD800-\uDBFF]$/.test(text.slice(0, -length)) ? cut.slice(1) : cut;
};

/**
 * `text` whole when it has at most `limit` characters; else its first `headLength` and its last
 * `limit - headLength` characters around a line saying how many were left out. No surrogate
 * pair is split.
 */
export const headAndTail = (text: string, limit: number, headLength: number): string => {
  if (text.length <= limit) return text;
  const start = headOf(text, headLength);
  const end = tailOf(text, limit - headLength);
  return joinEnds(start, text.length - start.length - end.length, end);
};

/** A text's beginning and end around the line saying how many characters between them were left out. */
export const joinEnds = (start: string, leftOut: number, end: string): string => `${start}\n[… ${leftOut} characters left out …]\n${end}`;
