/** Link labels that show github.com only once read: escapes, references, emphasis, code, invisible characters, a look-alike full stop. Shared by the chat formatters' tests. */
export const LINK_LABEL_BYPASSES: readonly string[] = [
  'github\\.com/o/r',
  'github&#46;com/o/r',
  'https&#58;//github.com/o/r',
  '**github.com**/o/r/pull/1',
  '*github.com*/o/r',
  '`github.com`/o/r',
  'github.com\u200b/o/r',
  'github.c\u00adom',
  'github.com\u2060/o/r',
  'github\u3002com/o/r',
];

/** A label for a test title, its invisible and non-ASCII characters written as \\u escapes. */
export const shownLabel = (label: string): string =>
  label.replace(/[^\x20-\x7e]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
