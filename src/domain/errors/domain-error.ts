/**
 * Stable error codes of the core. The HTTP adapter maps each code to a status in
 * one table; every other adapter translates its technical failures into one of these.
 */
export type ErrorCode =
  | 'invalid_input'
  | 'unauthorized'
  | 'not_found'
  | 'conflict'
  | 'rate_limited'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'not_configured'
  | 'internal';

/** Codes that are the caller's mistake: expected, answered, never investigated. */
const CALLER_ERRORS: ReadonlySet<ErrorCode> = new Set([
  'invalid_input',
  'unauthorized',
  'not_found',
  'payload_too_large',
  'unsupported_media_type',
  'conflict',
  'rate_limited',
]);

type StackLimited = { stackTraceLimit?: number };

/** Base of every error the core throws on purpose. `message` is safe to show to a caller for 4xx codes. */
export class DomainError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    // A caller's mistake needs no stack trace, and capturing one is the dearest part of a
    // 400/401 answer on the request path (bench/README.md, "Measurements behind the code").
    const limits = Error as StackLimited;
    const limit = limits.stackTraceLimit;
    if (CALLER_ERRORS.has(code)) limits.stackTraceLimit = 0;
    try {
      super(message, options);
    } finally {
      limits.stackTraceLimit = limit;
    }
    this.name = 'DomainError';
    this.code = code;
  }
}

export const isDomainError = (value: unknown): value is DomainError => value instanceof DomainError;
