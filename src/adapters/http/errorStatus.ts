import type { ErrorCode } from '../../domain/errors/DomainError.js';

/** The one table from error codes to HTTP statuses. */
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
};
