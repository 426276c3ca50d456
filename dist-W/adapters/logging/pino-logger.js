import { pino } from 'pino';
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
export const createPino = (level, destination, credentialHeaders = []) => pino({
    level,
    base: { service: 'agent-gateway' },
    redact: { paths: [...REDACTED, ...credentialHeaders.map((name) => `headers[${JSON.stringify(name)}]`)], censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
}, destination);
/** The Logger port on pino; the raw pino instance stays available to the HTTP adapter. */
export class PinoLogger {
    pino;
    constructor(pino) {
        this.pino = pino;
    }
    debug(fields, message) {
        this.pino.debug(fields, message);
    }
    info(fields, message) {
        this.pino.info(fields, message);
    }
    warn(fields, message) {
        this.pino.warn(fields, message);
    }
    error(fields, message) {
        this.pino.error(fields, message);
    }
    child(fields) {
        return new PinoLogger(this.pino.child(fields));
    }
}
//# sourceMappingURL=pino-logger.js.map