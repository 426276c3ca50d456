/**
 * Values a JSON file can hold whose conversion to text throws (a validator that writes
 * `String(value)` or a template literal of it fails with "Cannot convert object to primitive
 * value"), with a label each; and one made in code, whose conversion throws outright.
 */
export const UNCONVERTIBLE_VALUES: ReadonlyArray<readonly [string, unknown]> = [
  ['toString', JSON.parse('{"toString": 1}')],
  ['valueOf', JSON.parse('{"toString": 1, "valueOf": 1}')],
  [
    'toPrimitive',
    {
      [Symbol.toPrimitive]: () => {
        throw new Error('converted');
      },
    },
  ],
];
