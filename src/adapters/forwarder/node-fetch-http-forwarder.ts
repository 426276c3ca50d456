import fetch from 'node-fetch';
import pRetry from 'p-retry';
import { shownWebhookTarget } from '../../domain/triggers/webhook-target.js';
import type { HttpForwarder, OutboundRequest, OutboundResult } from '../../ports/http-forwarder.js';

export interface ForwarderSettings {
  /** Total attempts, the first included. */
  readonly attempts: number;
  /** Delay before the second attempt; doubled for each further one (0 in tests: no wait). */
  readonly backoffMs: number;
  /** Per attempt. */
  readonly timeoutMs: number;
}

const USER_AGENT = 'agent-gateway';
const retryable = (status: number): boolean => status === 429 || status >= 500;

/** One attempt's failure: `status` is null when no answer arrived (network error, timeout). */
class AttemptFailed extends Error {
  constructor(
    readonly status: number | null,
    message: string,
    readonly final: boolean,
  ) {
    super(message);
  }
}

/** Outbound webhooks with node-fetch: a timeout per attempt, exponential backoff (p-retry) on network errors, 429 and 5xx. */
export class NodeFetchHttpForwarder implements HttpForwarder {
  constructor(private readonly settings: ForwarderSettings) {}

  async send(request: OutboundRequest): Promise<OutboundResult> {
    const headers: Record<string, string> = { 'user-agent': USER_AGENT, ...request.headers };
    const body = request.method === 'POST' ? JSON.stringify(request.json ?? {}) : undefined;
    if (body !== undefined && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) {
      headers['content-type'] = 'application/json';
    }
    let attempts = 0;
    const attempt = async (): Promise<number> => {
      attempts++;
      let response: Awaited<ReturnType<typeof fetch>>;
      try {
        response = await fetch(request.url, {
          method: request.method,
          headers,
          body,
          redirect: 'manual',
          signal: AbortSignal.timeout(this.settings.timeoutMs),
        });
      } catch (cause) {
        // node-fetch's own message quotes the whole URL, whose path or query may be its secret.
        const { name, code } = cause as Error & { code?: unknown };
        throw new AttemptFailed(
          null,
          name === 'TimeoutError' || name === 'AbortError'
            ? `${shownWebhookTarget(request.url)} did not answer within ${this.settings.timeoutMs} ms`
            : `could not reach ${shownWebhookTarget(request.url)} (${typeof code === 'string' ? code : 'network error'})`,
          false,
        );
      }
      await response.arrayBuffer().catch(() => undefined);
      if (!response.ok) throw new AttemptFailed(response.status, `HTTP ${response.status}`, !retryable(response.status));
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
    } catch (error) {
      // Never throws: the outcome is in the result.
      if (error instanceof AttemptFailed) return { ok: false, status: error.status, attempts, error: error.message };
      return { ok: false, status: null, attempts, error: `could not send to ${shownWebhookTarget(request.url)} (${(error as Error).name})` };
    }
  }
}
