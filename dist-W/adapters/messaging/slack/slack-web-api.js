import fetch from 'node-fetch';
import pRetry from 'p-retry';
import { SlackApiError } from './slack-api-error.js';
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** Where Slack serves files (`url_private_download`) besides the API's own origin. */
const FILES_ORIGIN = 'https://files.slack.com';
/**
 * Slack's Web API: `POST {apiUrl}/<method>` with the bot token as a Bearer token and a JSON
 * body; every answer `{ok, …}`, rate limits as 429 with `Retry-After`. Errors are
 * SlackApiErrors and never contain the token.
 */
export class SlackWebApi {
    settings;
    constructor(settings) {
        this.settings = settings;
    }
    /**
     * One Web API call, tried again (p-retry, exponential backoff) after a network error, a
     * timeout, a server error or a rate limit — after a 429 also waiting as long as Slack asked.
     */
    call(token, method, body) {
        const wait = this.settings.sleep ?? sleep;
        return pRetry(() => this.#attempt(token, method, body), {
            retries: this.settings.attempts - 1,
            minTimeout: this.settings.backoffMs,
            factor: 2,
            shouldRetry: ({ error }) => error instanceof SlackApiError && error.transient,
            onFailedAttempt: async ({ error, retriesLeft }) => {
                if (retriesLeft > 0 && error instanceof SlackApiError && error.retryAfterMs !== undefined) {
                    await wait(Math.min(error.retryAfterMs, this.settings.maxRetryAfterMs));
                }
            },
        });
    }
    async #attempt(token, method, body) {
        let answer;
        let status;
        let retryAfter;
        try {
            const response = await fetch(`${this.settings.apiUrl}/${method}`, {
                method: 'POST',
                headers: { 'content-type': 'application/json; charset=utf-8', authorization: `Bearer ${token}` },
                body: JSON.stringify(body),
                signal: AbortSignal.timeout(this.settings.timeoutMs),
            });
            status = response.status;
            retryAfter = response.headers.get('retry-after');
            answer = (await response.json().catch(() => ({ ok: false, error: response.statusText || 'no_json' })));
        }
        catch (error) {
            const name = error.name;
            throw new SlackApiError(method, 0, name === 'TimeoutError' || name === 'AbortError' ? 'timed_out' : 'network_error');
        }
        if (status === 200 && answer.ok === true)
            return answer;
        const seconds = retryAfter !== null && /^\d{1,6}$/.test(retryAfter.trim()) ? Number(retryAfter.trim()) : undefined;
        const code = typeof answer.error === 'string' && answer.error !== '' ? answer.error.slice(0, 100) : 'unknown_error';
        throw new SlackApiError(method, status, code, seconds === undefined ? (status === 429 ? 1000 : undefined) : seconds * 1000);
    }
    /** Fetches a file's private address with the token, only from Slack's file host or the API's own origin (a fake in tests). */
    async download(token, address) {
        if (!this.#isFileAddress(address))
            throw new SlackApiError('download', 200, 'no_download_url');
        let response;
        try {
            response = await fetch(address, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(this.settings.timeoutMs) });
        }
        catch {
            throw new SlackApiError('download', 0, 'network_error');
        }
        if (!response.ok)
            throw new SlackApiError('download', response.status, response.statusText || 'download_failed');
        return new Uint8Array(await response.arrayBuffer());
    }
    #isFileAddress(address) {
        if (!URL.canParse(address))
            return false;
        const origin = new URL(address).origin;
        return origin === FILES_ORIGIN || origin === new URL(this.settings.apiUrl).origin;
    }
}
//# sourceMappingURL=slack-web-api.js.map