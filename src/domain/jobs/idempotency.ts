import { DomainError } from '../errors/domain-error.js';
import { isRawJson } from '../templates/exact-json.js';

/** How long an `Idempotency-Key` names the job it created: a request with it after that creates a new job. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/**
 * The `Idempotency-Key` header of a create-job request: undefined when absent; otherwise 1 to
 * 255 printable ASCII characters (space to `~`), sent once, or `invalid_input`.
 */
export const parseIdempotencyKey = (header: string | readonly string[] | undefined): string | undefined => {
  if (header === undefined) return undefined;
  if (typeof header !== 'string') throw new DomainError('invalid_input', 'Idempotency-Key must be sent once');
  if (header.length === 0 || header.length > MAX_IDEMPOTENCY_KEY_LENGTH || !/^[\x20-\x7e]+$/.test(header)) {
    throw new DomainError('invalid_input', `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters`);
  }
  return header;
};

/**
 * A request body as canonical JSON — object keys sorted at every level, no whitespace — so
 * that two bodies that differ only in key order or formatting count as the same request.
 */
export const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  // A number kept as its text (exact-json.ts) is a value: JSON.stringify below writes its digits.
  if (typeof value === 'object' && value !== null && !isRawJson(value)) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, field]) => field !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, field]) => `${JSON.stringify(key)}:${canonicalJson(field)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
};
