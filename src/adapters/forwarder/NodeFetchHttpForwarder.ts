import fetch from 'node-fetch';
import type { HttpForwarder, OutboundRequest, OutboundResult } from '../../ports/HttpForwarder.js';

export interface ForwarderSettings {
  /** Total attempts, the first included. */
  readonly attempts: number;
  /** Delay before the second attempt; doubled for each further one. */
  readonly backoffMs: number;
  /** Per attempt. */
  readonly timeoutMs: number;
}

const USER_AGENT = 'agent-gateway';
const retryable = (status: number): boolean => status === 429 || status >= 500;

/** Outbound webhooks with node-fetch: a timeout per attempt, exponential backoff on network errors, 429 and 5xx. */
export class NodeFetchHttpForwarder implements HttpForwarder {
  constructor(private readonly settings: ForwarderSettings) {}

  async send(request: OutboundRequest): Promise<OutboundResult> {
    const headers: Record<string, string> = { 'user-agent': USER_AGENT, ...request.headers };
    const body = request.method === 'POST' ? JSON.stringify(request.json ?? {}) : undefined;
    if (body !== undefined && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) {
      headers['content-type'] = 'application/json';
    }
    let status: number | null = null;
    let error = '';
    for (let attempt = 1; attempt <= this.settings.attempts; attempt++) {
      if (attempt > 1) await new Promise((resolve) => setTimeout(resolve, this.settings.backoffMs * 2 ** (attempt - 2)));
      try {
        const response = await fetch(request.url, { method: request.method, headers, body, redirect: 'manual', signal: AbortSignal.timeout(this.settings.timeoutMs) });
        await response.arrayBuffer().catch(() => undefined);
        status = response.status;
        if (response.ok) return { ok: true, status, attempts: attempt };
        error = `HTTP ${status}`;
        if (!retryable(status)) return { ok: false, status, attempts: attempt, error };
      } catch (cause) {
        status = null;
        error = (cause as Error).name === 'TimeoutError' || (cause as Error).name === 'AbortError' ? `timed out after ${this.settings.timeoutMs} ms` : (cause as Error).message;
      }
    }
    return { ok: false, status, attempts: this.settings.attempts, error };
  }
}
