import { storableText } from './storable-text.js';

/**
 * A JSON value as PostgreSQL `jsonb` can store it: every string in it, keys included and at
 * any depth, made storable (each NUL and lone surrogate becomes U+FFFD); everything else kept.
 * Values that are not JSON (functions, undefined) are left as they are.
 */
export const storableJson = <T>(value: T): T => {
  if (typeof value === 'string') return storableText(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => storableJson(item)) as T;
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [storableText(key), storableJson(item)])) as T;
  }
  return value;
};
