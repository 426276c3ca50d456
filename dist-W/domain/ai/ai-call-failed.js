import { DomainError } from '../errors/domain-error.js';
/**
 * A failed AI call, classified where the provider's answer is known (the AI adapter).
 * `message` may quote the provider (for the log and a job's error); `reason` and `httpStatus`
 * are what may be shown to a user. `not_configured` keeps that code (our own text, a 501);
 * every other reason is `internal`.
 */
export class AiCallFailed extends DomainError {
    reason;
    /** The provider's HTTP status, when it answered. */
    httpStatus;
    constructor(reason, message, options) {
        super(reason === 'not_configured' ? 'not_configured' : 'internal', message, options);
        this.name = 'AiCallFailed';
        this.reason = reason;
        this.httpStatus = options?.httpStatus;
    }
}
/** The reason of any failure of an AI call: a DomainError `not_configured` counts as one too. */
export const aiFailureReason = (error) => {
    if (error instanceof AiCallFailed)
        return error.reason;
    if (error instanceof DomainError && error.code === 'not_configured')
        return 'not_configured';
    return 'other';
};
//# sourceMappingURL=ai-call-failed.js.map