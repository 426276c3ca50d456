import fetch, { type Response } from 'node-fetch';
import pRetry from 'p-retry';
import { isDomainError } from '../../../domain/errors/domain-error.js';
import { readAtMost } from '../bounded-body.js';
import { SlackApiError } from './slack-api-error.js';

export interface WebApiAnswer {
  ok?: boolean;
  error?: string;
  [field: string]: unknown;
}

export interface SlackSettings {
  /** `https://slack.com/api`, or a fake in tests. */
  readonly apiUrl: string;
  /** Attempts per call, the first included: network errors, timeouts, 5xx and 429 are tried again. */
  readonly attempts: number;
  /** Delay before the second attempt; doubled for each further one (0 in tests: no wait). */
  readonly backoffMs: number;
  /** Upper bound of one Retry-After wait. */
  readonly maxRetryAfterMs: number;
  readonly timeoutMs: number;
  /** Waits out a rate limit (Retry-After); a fake in tests, so that they need not wait. */
  readonly sleep?: (ms: number) => Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Where Slack serves files (`url_private_download`) besides the API's own origin. */
const FILES_ORIGIN = 'https://files.slack.com';

/**
 * Slack's Web API: `POST {apiUrl}/<method>` with the bot token as a Bearer token and a JSON
 * body; every answer `{ok, …}`, rate limits as 429 with `Retry-After`. Errors are
 * SlackApiErrors and never contain the token.
 */
export class SlackWebApi {
  constructor(private readonly settings: SlackSettings) {}

  /**
   * One Web API call, tried again (p-retry, exponential backoff) after a network error, a
   * timeout, a server error or a rate limit — after a 429 also waiting as long as Slack asked.
   * With `once`, one attempt whatever the failure (SendOptions.once).
   */
  call(token: string, method: string, body: object, { once = false }: { readonly once?: boolean } = {}): Promise<WebApiAnswer> {
    const wait = this.settings.sleep ?? sleep;
    return pRetry(() => this.#attempt(token, method, body), {
      retries: once ? 0 : this.settings.attempts - 1,
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

  async #attempt(token: string, method: string, body: object): Promise<WebApiAnswer> {
    let answer: WebApiAnswer;
    let status: number;
    let retryAfter: string | null;
    try {
      const response = await fetch(`${this.settings.apiUrl}/${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8', authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
      status = response.status;
      retryAfter = response.headers.get('retry-after');
      answer = (await response.json().catch(() => ({ ok: false, error: response.statusText || 'no_json' }))) as WebApiAnswer;
    } catch (error) {
      const name = (error as Error).name;
      throw new SlackApiError(method, 0, name === 'TimeoutError' || name === 'AbortError' ? 'timed_out' : 'network_error');
    }
    if (status === 200 && answer.ok === true) return answer;
    const seconds = retryAfter !== null && /^\d{1,6}$/.test(retryAfter.trim()) ? Number(retryAfter.trim()) : undefined;
    const code = typeof answer.error === 'string' && answer.error !== '' ? answer.error.slice(0, 100) : 'unknown_error';
    throw new SlackApiError(method, status, code, seconds === undefined ? (status === 429 ? 1000 : undefined) : seconds * 1000);
  }
  /** Fetches a file's private address with the token, only from Slack's file host or the API's own origin (a fake in tests); at most `maxBytes`. */
  async download(token: string, address: string, maxBytes: number): Promise<Uint8Array> {
    if (!this.#isFileAddress(address)) throw new SlackApiError('download', 200, 'no_download_url');
    let response: Response;
    try {
      response = await fetch(address, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(this.settings.timeoutMs) });
    } catch {
      throw new SlackApiError('download', 0, 'network_error');
    }
    if (!response.ok) throw new SlackApiError('download', response.status, response.statusText || 'download_failed');
    try {
      return await readAtMost(response.body, response.headers.get('content-length'), maxBytes);
    } catch (error) {
      if (isDomainError(error)) throw error;
      throw new SlackApiError('download', 0, 'network_error');
    }
  }

  #isFileAddress(address: string): boolean {
    if (!URL.canParse(address)) return false;
    const origin = new URL(address).origin;
    return origin === FILES_ORIGIN || origin === new URL(this.settings.apiUrl).origin;
  }
}
