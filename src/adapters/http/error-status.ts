import { DomainError, isDomainError, type ErrorCode } from '../../domain/errors/domain-error.js';

/** The one table from error codes to HTTP statuses: the API, the admin UI and the admin socket answer by it. */
export const STATUS_BY_CODE: Readonly<Record<ErrorCode, number>> = {
  invalid_input: 400,
  unauthorized: 401,
  not_found: 404,
  conflict: 409,
  rate_limited: 429,
  payload_too_large: 413,
  unsupported_media_type: 415,
  internal: 500,
  not_configured: 501,
  unavailable: 503,
  busy: 503,
};

/** The only texts a 500 may carry besides `Internal server error`: SPEC 7's fixed messages. */
const SPEC_SERVER_MESSAGES: ReadonlySet<string> = new Set(['Failed to create job', 'Failed to register webhook']);

const INTERNAL = 'Internal server error';

/**
 * What a 503 of `unavailable` says: its error's own text names what failed (a PANIC's file, a
 * server's host), which is for the log only.
 */
const UNAVAILABLE = 'Database unavailable; try again shortly';

/**
 * The seconds a 503 of `unavailable` asks the caller to wait (`Retry-After`): an embedded
 * database that failed stops the service for its supervisor to start it again (a few seconds),
 * and a PostgreSQL server that dropped its connections is usually back as soon.
 */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/**
 * The seconds a 503 of `busy` (JOB_QUEUE_LIMIT reached) asks the caller to wait: jobs run for
 * minutes to hours, so the backlog goes down slowly, and asking again sooner only adds refusals.
 */
export const BUSY_RETRY_AFTER_SECONDS = 60;

/** What a caller is told of a failure, and what goes to the request's log line. */
export interface ErrorAnswer {
  readonly status: number;
  readonly code: ErrorCode;
  /** Safe to show: a 4xx's own message, a 501's configuration hint, or a fixed text. */
  readonly message: string;
  /** The failure to log at error level (server-side failures only). */
  readonly logged?: unknown;
  /** Set on a 503 (`unavailable`, `busy`): how long the caller should wait before trying again (`Retry-After`). */
  readonly retryAfterSeconds?: number;
}

/**
 * Maps any failure to its answer. A domain error gets its code's status; its message reaches
 * the caller for 4xx and 501 (our own texts naming what is wrong or not configured); a 500 says
 * `Internal server error` unless it is one of SPEC 7's fixed texts, so a provider's or a
 * library's error text (which may quote a request, a token or a URL) never reaches the caller.
 * Anything that is not a domain error is a 500; its detail goes to the log only. A failure caused
 * by the database's being unavailable (an `unavailable` error, also as the cause of another, such
 * as a use case's fixed 500 or a library's wrapping) is a 503 with `Retry-After`: nothing is wrong
 * with the request, and the same request is likely to succeed shortly.
 */
export const answerFor = (error: unknown): ErrorAnswer => {
  const unavailable = unavailableIn(error);
  if (unavailable !== undefined)
    return { status: 503, code: 'unavailable', message: UNAVAILABLE, logged: unavailable, retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS };
  if (!isDomainError(error)) return { status: 500, code: 'internal', message: INTERNAL, logged: error };
  const status = STATUS_BY_CODE[error.code];
  // The service's own limit (not the caller's rate: RFC 9110 15.6.4, not RFC 6585's 429), named in the message.
  if (error.code === 'busy') return { status, code: error.code, message: error.message, retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS };
  if (error.code !== 'internal') return { status, code: error.code, message: error.message };
  return { status, code: error.code, message: SPEC_SERVER_MESSAGES.has(error.message) ? error.message : INTERNAL, logged: error.cause ?? error };
};

/** The `unavailable` error that `error` is, or that caused it (its chain of causes, a few deep). */
const unavailableIn = (error: unknown): DomainError | undefined => {
  let cause = error;
  for (let depth = 0; depth < 8 && cause instanceof Error; depth++, cause = cause.cause) if (isDomainError(cause) && cause.code === 'unavailable') return cause;
  return undefined;
};

/** The fields by which raw-body, inflation, co-body and zlib say what went wrong. */
interface LibraryFailure {
  readonly type?: unknown;
  readonly status?: unknown;
  readonly code?: unknown;
  readonly limit?: unknown;
}

/**
 * Translates a failure of the request-body libraries (koa-bodyparser → co-body → raw-body,
 * inflation, zlib) reading a body into the core's error, so that it answers by STATUS_BY_CODE
 * with our own message: over the limit 413; an unknown content-encoding 415; corrupt,
 * truncated or cut-off bodies 400. What none of these is stays a 500. (The bytes are parsed
 * afterwards, by the body middlewares, which throw their own errors.)
 */
export const bodyFailure = (error: unknown): DomainError => {
  if (isDomainError(error)) return error;
  const failure = (typeof error === 'object' && error !== null ? error : {}) as LibraryFailure;
  switch (failure.type) {
    case 'entity.too.large':
      return new DomainError('payload_too_large', `Request body is larger than ${String(failure.limit)} bytes`);
    case 'request.aborted':
      return new DomainError('invalid_input', 'Request body was cut off');
    case 'request.size.invalid':
      return new DomainError('invalid_input', 'Request body does not match its Content-Length');
  }
  if (failure.status === 415) return new DomainError('unsupported_media_type', 'Unsupported body encoding');
  // zlib (Z_DATA_ERROR, Z_BUF_ERROR, …) and brotli (ERR_BROTLI_…, ERR__ERROR_…): a corrupt compressed body.
  if (typeof failure.code === 'string' && /^(Z_|ERR_BROTLI|ERR__)/.test(failure.code))
    return new DomainError('invalid_input', 'Invalid request body: it does not decompress as its Content-Encoding says');
  return new DomainError('internal', 'Could not read the request body', { cause: error });
};
