import fetch from 'node-fetch';

export interface GithubSettings {
  readonly token: string;
  /** `owner/name`. */
  readonly repo: string;
  /** `https://api.github.com`, or a GitHub Enterprise / test server. */
  readonly apiUrl: string;
  /** Attempts of a call GitHub answered as passing trouble (default 3). */
  readonly attempts?: number;
  /** How a wait between attempts is waited (tests record it instead); `signal` ends it early. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** The longest wait for a rate limit to lift before a call gives up (the caller tries again later: the poller, a task's retry). */
export const MAX_RATE_LIMIT_WAIT_MS = 60_000;

/**
 * How long GitHub asks to wait before a failed call is tried again (0: no time given, back
 * off), or undefined when trying again is not worth it: 429 and a rate-limited 403 (GitHub's
 * primary and secondary limits) after `retry-after` or until `x-ratelimit-reset`, 5xx. Any
 * other answer is final.
 */
const retryDelay = (status: number, headers: { get(name: string): string | null }, detail: string, now: number): number | undefined => {
  const backoff = 0;
  if (status >= 500) return backoff;
  const limited =
    status === 429 || (status === 403 && (headers.get('x-ratelimit-remaining') === '0' || headers.get('retry-after') !== null || /rate limit/i.test(detail)));
  if (!limited) return undefined;
  const after = Number(headers.get('retry-after'));
  if (Number.isFinite(after) && after >= 0 && headers.get('retry-after') !== null) return after * 1000;
  const reset = Number(headers.get('x-ratelimit-reset'));
  if (Number.isFinite(reset) && reset > 0) return Math.max(0, reset * 1000 - now);
  return backoff;
};

/** Thrown for a GitHub answer that is not a success; the message names the call, never the token. */
export class GithubError extends Error {
  constructor(
    readonly status: number,
    call: string,
    readonly detail: string,
    /** When the answer was passing trouble: how long to wait before trying again. */
    readonly retryAfterMs?: number,
  ) {
    super(`GitHub ${call} answered ${status}${detail ? `: ${detail}` : ''}`);
    this.name = 'GithubError';
  }
}

/** Waits `ms`, or less once `signal` aborts: its timer is cleared then, holding no stop of the process. */
const wait = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise<void>((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });

/** Resolves after `waiting`, or rejects with the signal's reason once it aborts (a wait between attempts stops with its call). */
const abortable = (waiting: Promise<void>, signal: AbortSignal | undefined): Promise<void> => {
  if (signal === undefined) return waiting;
  signal.throwIfAborted();
  return new Promise<void>((resolve, reject) => {
    const stop = (): void => reject(signal.reason);
    signal.addEventListener('abort', stop, { once: true });
    waiting.then(
      () => {
        signal.removeEventListener('abort', stop);
        resolve();
      },
      (error: unknown) => {
        signal.removeEventListener('abort', stop);
        reject(error);
      },
    );
  });
};

/** The longest a single call may take before it is given up. */
const CALL_TIMEOUT_MS = 30_000;

/** The few GitHub REST calls the job runner needs (API version 2022-11-28). */
export class GithubClient {
  constructor(private readonly settings: GithubSettings) {}

  /** `owner/name` of the repository the calls are about. */
  get repo(): string {
    return this.settings.repo;
  }

  /**
   * One REST call. An answer of passing trouble (a rate limit, a 5xx) is tried again, up to
   * `attempts`, after the wait GitHub asks for (at most MAX_RATE_LIMIT_WAIT_MS: a longer one
   * fails at once, for a later try). Throws GithubError for any other failure.
   * `signal`: the caller's; once it aborts, the call under way is given up and no other attempt
   * is made (a wait between attempts ends at once): it rejects with the signal's reason, or the
   * fetch's abort error. `attempts`: this call's, instead of the settings' (1: never tried again).
   */
  async request<T>(
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    body?: unknown,
    { signal, attempts: callAttempts }: { readonly signal?: AbortSignal; readonly attempts?: number } = {},
  ): Promise<T> {
    const attempts = callAttempts ?? this.settings.attempts ?? 3;
    const sleep = this.settings.sleep ?? wait;
    for (let attempt = 1; ; attempt++) {
      signal?.throwIfAborted();
      try {
        return await this.#once<T>(method, path, body, signal);
      } catch (error) {
        if (!(error instanceof GithubError) || error.retryAfterMs === undefined || attempt >= attempts || error.retryAfterMs > MAX_RATE_LIMIT_WAIT_MS)
          throw error;
        await abortable(sleep(error.retryAfterMs > 0 ? error.retryAfterMs : 1000 * 2 ** (attempt - 1), signal), signal);
      }
    }
  }

  async #once<T>(method: 'GET' | 'POST' | 'PUT', path: string, body: unknown, signal: AbortSignal | undefined): Promise<T> {
    const url = `${this.settings.apiUrl.replace(/\/$/, '')}/repos/${this.settings.repo}${path}`;
    const response = await fetch(url, {
      method,
      headers: {
        authorization: `Bearer ${this.settings.token}`,
        accept: 'application/vnd.github+json',
        'x-github-api-version': '2022-11-28',
        'user-agent': 'agent-gateway',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: signal === undefined ? AbortSignal.timeout(CALL_TIMEOUT_MS) : AbortSignal.any([signal, AbortSignal.timeout(CALL_TIMEOUT_MS)]),
    });
    const text = await response.text();
    if (!response.ok) {
      let detail = '';
      try {
        detail = String((JSON.parse(text) as { message?: unknown }).message ?? '');
      } catch {
        detail = text.slice(0, 200);
      }
      throw new GithubError(
        response.status,
        `${method} /repos/${this.settings.repo}${path.split('?')[0]}`,
        detail,
        retryDelay(response.status, response.headers, detail, Date.now()),
      );
    }
    return (text === '' ? {} : JSON.parse(text)) as T;
  }
}
