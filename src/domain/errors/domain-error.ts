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
  /** The database the service needs cannot be used for now (it failed, or cannot be reached): worth trying again shortly. */
  | 'unavailable'
  /**
   * The service has as much work waiting as it takes (a bound an operator set, such as
   * JOB_QUEUE_LIMIT): nothing is wrong with the request, and the same request is likely to be
   * taken once the waiting work has gone down.
   */
  | 'busy'
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

/** Longest text of a caller's error that is shared (see DomainError); a longer one may quote a caller at length. */
const SHARED_MESSAGE_LENGTH = 200;
/** At most this many shared caller's errors; when full, the table starts again. */
const SHARED_LIMIT = 256;
const shared = new Map<string, DomainError>();

/**
 * Base of every error the core throws on purpose. `message` is safe to show to a caller for 4xx codes.
 *
 * A caller's error (CALLER_ERRORS) carries no stack trace, and one without a cause is a value:
 * the same code and text give the same object, so nothing may change it once made. Making an
 * `Error` on the request path costs microseconds even without a stack (bench/README.md,
 * "Measurements behind the code"), and a refused request makes one. Subclasses are never
 * shared. Not frozen: Koa's last-resort handler writes `status` on any error it is given, and
 * there a write to a frozen object would throw inside a promise's handler and end the process.
 */
export class DomainError extends Error {
  declare readonly code: ErrorCode;

  // biome-ignore lint/correctness/noUnreachableSuper: a shared caller's error is returned without making another (see above)
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    const callers = CALLER_ERRORS.has(code);
    const key = callers && options === undefined && new.target === DomainError && message.length <= SHARED_MESSAGE_LENGTH ? `${code} ${message}` : undefined;
    const same = key === undefined ? undefined : shared.get(key);
    // biome-ignore lint/correctness/noConstructorReturn: the shared value of the same code and text (see above)
    if (same !== undefined) return same;
    const limits = Error as StackLimited;
    const limit = limits.stackTraceLimit;
    if (callers) limits.stackTraceLimit = 0;
    try {
      super(message, options);
    } finally {
      limits.stackTraceLimit = limit;
    }
    this.name = 'DomainError';
    this.code = code;
    if (key !== undefined) {
      if (shared.size >= SHARED_LIMIT) shared.clear();
      shared.set(key, this);
    }
  }
}

export const isDomainError = (value: unknown): value is DomainError => value instanceof DomainError;
