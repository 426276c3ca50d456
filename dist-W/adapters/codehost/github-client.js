import fetch from 'node-fetch';
/** Thrown for a GitHub answer that is not a success; the message names the call, never the token. */
export class GithubError extends Error {
    status;
    constructor(status, call, detail) {
        super(`GitHub ${call} answered ${status}${detail ? `: ${detail}` : ''}`);
        this.status = status;
        this.name = 'GithubError';
    }
}
/** The few GitHub REST calls the job runner needs (API version 2022-11-28). */
export class GithubClient {
    settings;
    constructor(settings) {
        this.settings = settings;
    }
    async request(method, path, body) {
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
                detail = String(JSON.parse(text).message ?? '');
            }
            catch {
                detail = text.slice(0, 200);
            }
            throw new GithubError(response.status, `${method} /repos/${this.settings.repo}${path.split('?')[0]}`, detail);
        }
        return (text === '' ? {} : JSON.parse(text));
    }
}
//# sourceMappingURL=github-client.js.map