/*
 * The ends of a block's text, found in linear time. A regex anchored at the end, such as
 * `/\s+$/` or `/\n+$/`, is tried from every position of a run of whitespace: where the run is
 * followed by other text, each try scans to the run's end and fails, in time growing with the
 * square of the run (100 000 spaces in a model's reply kept the process busy for 40 s).
 */

/** The line breaks among the whitespace `raw` ends with (what `/\s*$/` matches, but its `\n`s). */
export const trailingBreaks = (raw: string): string => raw.slice(raw.trimEnd().length).replace(/[^\n]/g, '');

/** `text` without the line breaks it ends with (`text.replace(/\n+$/, '')`). */
export const withoutTrailingBreaks = (text: string): string => {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 10) end -= 1;
  return text.slice(0, end);
};
