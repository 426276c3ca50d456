/**
 * Stable error codes of the core. The HTTP adapter maps each code to a status in
 * one table; every other adapter translates its technical failures into one of these.
 */
export type ErrorCode =
  | 'invalid_input'
  | 'unauthorized'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'not_configured'
  | 'internal';

/** Base of every error the core throws on purpose. `message` is safe to show to a caller for 4xx codes. */
export class DomainError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DomainError';
    this.code = code;
  }
}

export const isDomainError = (value: unknown): value is DomainError => value instanceof DomainError;
