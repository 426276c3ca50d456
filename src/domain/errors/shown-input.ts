/** The most characters of a caller's value an error message repeats. */
export const SHOWN_INPUT_LENGTH = 40;

/**
 * A value a caller sent, as an error message repeats it: whole up to 40 characters, else its
 * first 40 and `…` (never the half of a surrogate pair). An answer naming what was wrong stays
 * short however long the value was (a 900 000-character provider name, a charset parameter).
 */
export const shownInput = (value: string, limit: number = SHOWN_INPUT_LENGTH): string => {
  if (value.length <= limit) return value;
  const cut = /[\uD800-\uDBFF]$/.test(value.slice(0, limit)) ? limit - 1 : limit;
  return `${value.slice(0, cut)}…`;
};
