import { shownInput } from '../errors/shown-input.js';

/**
 * What a file holds where a field of another kind was expected, for a problem's "found …":
 * `the string "true"`, `the number 3`, `false`, `an object`, `an empty array`. Never converts an
 * object (its conversion may throw); a long string is cut.
 */
export const describeValue = (value: unknown): string => {
  if (value === null) return 'null';
  if (Array.isArray(value)) return value.length === 0 ? 'an empty array' : 'an array';
  switch (typeof value) {
    case 'string':
      return `the string ${JSON.stringify(shownInput(value, 60))}`;
    case 'number':
      return Number.isFinite(value) ? `the number ${value}` : 'a number too large to be finite';
    case 'boolean':
      return String(value);
    case 'undefined':
      return 'nothing';
    case 'object':
      return 'an object';
    default:
      return `a ${typeof value}`;
  }
};

/**
 * The problem of a field that must be `what`: "required, …" when it is absent, else "must be …,
 * found …" naming what is there (a wrong type is not a missing field: `"enabled": "true"`).
 */
export const requiredAs = (value: unknown, what: string): string =>
  value === undefined ? `required, ${what}` : `must be ${what}, found ${describeValue(value)}`;
