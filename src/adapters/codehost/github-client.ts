import fetch from 'node-fetch';

export interface GithubSettings {
  readonly token: string;
  /** `owner/name`. */
  readonly repo: string;
  /** `https://api.github.com`, or a GitHub Enterprise / test server. */
  readonly apiUrl: string;
}

/** Thrown for a GitHub answer that is not a success; the message names the call, never the token. */
export class GithubError extends Error {
  constructor(
    readonly status: number,
    call: string,
    detail: string,
  ) {
    super(`GitHub ${call} answered ${status}${detail ? `: ${detail}` : ''}`);
    this.name = 'GithubError';
  }
}

/** The few GitHub REST calls the job runner needs (API version 2022-11-28). */
export class GithubClient {
  constructor(private readonly settings: GithubSettings) {}

  async request<T>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<T> {
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
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    if (!response.ok) {
      let detail = '';
      try {
        detail = String((JSON.parse(text) as { message?: unknown }).message ?? '');
      } catch {
        detail = text.slice(0, 200);
      }
      throw new GithubError(response.status, `${method} /repos/${this.settings.repo}${path.split('?')[0]}`, detail);
    }
    return (text === '' ? {} : JSON.parse(text)) as T;
  }
}
