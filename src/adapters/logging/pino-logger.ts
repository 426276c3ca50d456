import { pino, type Logger as Pino, type LevelWithSilent } from 'pino';
import type { Logger } from '../../ports/logger.js';

/** Header and field names whose values never reach a log line, whatever a caller passes. */
const REDACTED = [
  'key',
  'apiKey',
  'token',
  'secret',
  'password',
  'headers["x-api-key"]',
  'headers.authorization',
  'headers.cookie',
  'headers["x-hub-signature-256"]',
];

/** `credentialHeaders`: more headers to redact (lower-case), the messaging channels'. */
export const createPino = (level: LevelWithSilent, destination?: pino.DestinationStream, credentialHeaders: readonly string[] = []): Pino =>
  pino(
    {
      level,
      base: { service: 'agent-gateway' },
      redact: { paths: [...REDACTED, ...credentialHeaders.map((name) => `headers[${JSON.stringify(name)}]`)], censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );

/** The Logger port on pino; the raw pino instance stays available to the HTTP adapter. */
export class PinoLogger implements Logger {
  constructor(readonly pino: Pino) {}

  debug(fields: object, message: string): void {
    this.pino.debug(fields, message);
  }
  info(fields: object, message: string): void {
    this.pino.info(fields, message);
  }
  warn(fields: object, message: string): void {
    this.pino.warn(fields, message);
  }
  error(fields: object, message: string): void {
    this.pino.error(fields, message);
  }
  child(fields: object): Logger {
    return new PinoLogger(this.pino.child(fields));
  }
}
