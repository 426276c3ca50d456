/** Web API `error` codes that mean the token is not (or no longer) good. */
const AUTH_ERRORS = new Set([
    'not_authed',
    'invalid_auth',
    'account_inactive',
    'token_revoked',
    'token_expired',
    'no_permission',
    'missing_scope',
    'org_login_required',
    'ekm_access_denied',
]);
/** Web API `error` codes of a passing trouble on Slack's side: worth another attempt. */
const UNAVAILABLE_ERRORS = new Set(['internal_error', 'fatal_error', 'service_unavailable', 'request_timeout']);
/** What an answer that is not `ok` means: the HTTP status and Slack's `error` code, classified. */
export const classifySlackFailure = (status, error) => {
    if (status === 0)
        return 'network';
    if (status === 429 || error === 'ratelimited' || error === 'rate_limited')
        return 'rate-limited';
    if (status >= 500 || UNAVAILABLE_ERRORS.has(error))
        return 'unavailable';
    if (status === 401 || status === 403 || AUTH_ERRORS.has(error))
        return 'unauthorized';
    return 'refused';
};
const DESCRIPTIONS = {
    network: 'no answer',
    'rate-limited': 'rate limited',
    unavailable: 'server error, Slack is unavailable',
    unauthorized: 'Unauthorized: the bot token is not valid or lacks a scope',
    refused: 'refused',
};
/** A Web API answer that is not `ok`, classified. The message never contains the token. */
export class SlackApiError extends Error {
    method;
    status;
    error;
    retryAfterMs;
    kind;
    constructor(method, status, 
    /** Slack's `error` code (`channel_not_found`, `invalid_auth`, …), or what went wrong before an answer. */
    error, 
    /** How long Slack asked to wait before the call is tried again (429 `Retry-After`). */
    retryAfterMs) {
        const kind = classifySlackFailure(status, error);
        super(`Slack ${method} failed (${status}): ${error} (${DESCRIPTIONS[kind]})`);
        this.method = method;
        this.status = status;
        this.error = error;
        this.retryAfterMs = retryAfterMs;
        this.name = 'SlackApiError';
        this.kind = kind;
    }
    /** Worth another attempt: no answer (network, timeout), a server error, or a rate limit. */
    get transient() {
        return this.kind === 'network' || this.kind === 'rate-limited' || this.kind === 'unavailable';
    }
}
//# sourceMappingURL=slack-api-error.js.map