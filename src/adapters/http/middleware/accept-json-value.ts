import { DomainError } from '../../../domain/errors/domain-error.js';
import { isRawJson } from '../../../domain/templates/exact-json.js';
import { MAX_JSON_DEPTH } from '../../shared/json-depth.js';

/** Deepest nesting a JSON body may have: one limit with Slack's interactivity payload (adapters/shared/json-depth.ts). */
export { MAX_JSON_DEPTH };

type Container = Record<string, unknown> | unknown[];

/** ES2024's string methods (in Node since 20); the project compiles against the ES2023 library. */
interface Es2024String {
  isWellFormed(): boolean;
  toWellFormed(): string;
}
const isWellFormed = (text: string): boolean => (text as unknown as Es2024String).isWellFormed();
const toWellFormed = (text: string): string => (text as unknown as Es2024String).toWellFormed();

/** Objects and arrays; not a number parseJson kept as its text (a frozen `JSON.rawJSON` value, a leaf). */
const isContainer = (value: unknown): value is Container => typeof value === 'object' && value !== null && !isRawJson(value);

/** Re-inserts every key of `node` in order, with its lone surrogates replaced. */
const fixKeys = (node: Record<string, unknown>): void => {
  const entries = Object.entries(node);
  for (const [key] of entries) delete node[key];
  for (const [key, value] of entries) node[toWellFormed(key)] = value;
};

/**
 * The edge's rules for a parsed JSON body, the same on every endpoint: nesting deeper than
 * MAX_JSON_DEPTH is refused (400, naming the limit); a lone surrogate in any string or key
 * (valid JSON as `\ud83d`, but not Unicode text, so no database or UTF-8 encoder keeps it)
 * becomes U+FFFD. NUL characters are valid text and stay. Works in place, without recursion,
 * so a hostile body cannot exhaust the stack; returns the value to use.
 */
export const acceptJsonValue = (value: unknown): unknown => {
  if (typeof value === 'string') return toWellFormed(value);
  if (!isContainer(value)) return value;
  const pending: Array<readonly [Container, number]> = [[value, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, depth] = next;
    if (depth > MAX_JSON_DEPTH) throw new DomainError('invalid_input', `JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`);
    const record = node as Record<string, unknown>;
    const keys = Array.isArray(node) ? undefined : Object.keys(node);
    const count = keys === undefined ? (node as unknown[]).length : keys.length;
    let keysBroken = false;
    for (let i = 0; i < count; i++) {
      const key = keys === undefined ? i : keys[i];
      if (typeof key === 'string' && !isWellFormed(key)) keysBroken = true;
      const child = record[key as string];
      if (typeof child === 'string') {
        if (!isWellFormed(child)) record[key as string] = toWellFormed(child);
      } else if (isContainer(child)) pending.push([child, depth + 1]);
    }
    if (keysBroken) fixKeys(record);
  }
  return value;
};
