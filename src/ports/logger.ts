/**
 * Structured logging. The first argument carries fields, the second a short message.
 * Callers never pass secrets, API keys or full message texts.
 */
export interface Logger {
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
  child(fields: object): Logger;
}
