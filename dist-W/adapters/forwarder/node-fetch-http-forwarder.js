import fetch from 'node-fetch';
import pRetry from 'p-retry';
const USER_AGENT = 'agent-gateway';
const retryable = (status) => status === 429 || status >= 500;
/** One attempt's failure: `status` is null when no answer arrived (network error, timeout). */
class AttemptFailed extends Error {
    status;
    final;
    constructor(status, message, final) {
        super(message);
        this.status = status;
        this.final = final;
    }
}
/** Outbound webhooks with node-fetch: a timeout per attempt, exponential backoff (p-retry) on network errors, 429 and 5xx. */
export class NodeFetchHttpForwarder {
    settings;
    constructor(settings) {
        this.settings = settings;
    }
    async send(request) {
        const headers = { 'user-agent': USER_AGENT, ...request.headers };
        const body = request.method === 'POST' ? JSON.stringify(request.json ?? {}) : undefined;
        if (body !== undefined && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) {
            headers['content-type'] = 'application/json';
        }
        let attempts = 0;
        const attempt = async () => {
            attempts++;
            let response;
            try {
                response = await fetch(request.url, {
                    method: request.method,
                    headers,
                    body,
                    redirect: 'manual',
                    signal: AbortSignal.timeout(this.settings.timeoutMs),
                });
            }
            catch (cause) {
                const name = cause.name;
                throw new AttemptFailed(null, name === 'TimeoutError' || name === 'AbortError' ? `timed out after ${this.settings.timeoutMs} ms` : cause.message, false);
            }
            await response.arrayBuffer().catch(() => undefined);
            if (!response.ok)
                throw new AttemptFailed(response.status, `HTTP ${response.status}`, !retryable(response.status));
            return response.status;
        };
        try {
            const status = await pRetry(attempt, {
                retries: this.settings.attempts - 1,
                minTimeout: this.settings.backoffMs,
                factor: 2,
                shouldRetry: ({ error }) => error instanceof AttemptFailed && !error.final,
            });
            return { ok: true, status, attempts };
        }
        catch (error) {
            // Never throws: the outcome is in the result.
            if (error instanceof AttemptFailed)
                return { ok: false, status: error.status, attempts, error: error.message };
            return { ok: false, status: null, attempts, error: error.message };
        }
    }
}
//# sourceMappingURL=node-fetch-http-forwarder.js.map