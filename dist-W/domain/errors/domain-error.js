/** Codes that are the caller's mistake: expected, answered, never investigated. */
const CALLER_ERRORS = new Set([
    'invalid_input',
    'unauthorized',
    'not_found',
    'payload_too_large',
    'unsupported_media_type',
    'conflict',
    'rate_limited',
]);
/** Base of every error the core throws on purpose. `message` is safe to show to a caller for 4xx codes. */
export class DomainError extends Error {
    code;
    constructor(code, message, options) {
        // A caller's mistake needs no stack trace, and capturing one is the dearest part of a
        // 400/401 answer on the request path (bench/README.md, "Measurements behind the code").
        const limits = Error;
        const limit = limits.stackTraceLimit;
        if (CALLER_ERRORS.has(code))
            limits.stackTraceLimit = 0;
        try {
            super(message, options);
        }
        finally {
            limits.stackTraceLimit = limit;
        }
        this.name = 'DomainError';
        this.code = code;
    }
}
export const isDomainError = (value) => value instanceof DomainError;
//# sourceMappingURL=domain-error.js.map