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
/** How much of an answer is read (and dropped: only its status counts) before the connection is closed. */
export const READ_LIMIT = 64 * 1024;
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

/** The send was stopped by its caller's signal. */
class Stopped extends Error {}

/**
 * Reads an answer nobody uses up to READ_LIMIT bytes, then drops the rest with its connection:
 * a peer streaming an endless or huge answer costs neither memory nor the attempt's timeout.
 */
const discard = async (body: AsyncIterable<{ readonly length: number }> | null): Promise<void> => {
  if (body === null) return;
  let read = 0;
  try {
    for await (const chunk of body) {
      read += chunk.length;
      if (read >= READ_LIMIT) break;
    }
  } catch {
    // The status has arrived; a body cut off midway changes nothing.
  }
};

/** Outbound webhooks with node-fetch: a timeout per attempt, exponential backoff (p-retry) on network errors, 429 and 5xx. */
export class NodeFetchHttpForwarder implements HttpForwarder {
  constructor(private readonly settings: ForwarderSettings) {}

  async send(request: OutboundRequest, signal?: AbortSignal): Promise<OutboundResult> {
    // Header names are case-insensitive: a default is added only when the action gives no header
    // of that name in any case (`User-Agent` replaces it; it is not sent as a second line).
    const headers: Record<string, string> = { ...request.headers };
    const given = (header: string): boolean => Object.keys(headers).some((name) => name.toLowerCase() === header);
    if (!given('user-agent')) headers['user-agent'] = USER_AGENT;
    const body = request.method === 'POST' ? JSON.stringify(request.json ?? {}) : undefined;
    if (body !== undefined && !given('content-type')) headers['content-type'] = 'application/json';
    let attempts = 0;
    const attempt = async (): Promise<number> => {
      if (signal?.aborted) throw new Stopped();
      attempts++;
      const timeout = AbortSignal.timeout(this.settings.timeoutMs);
      let response: Awaited<ReturnType<typeof fetch>>;
      try {
        response = await fetch(request.url, {
          method: request.method,
          headers,
          body,
          redirect: 'manual',
          signal: signal === undefined ? timeout : AbortSignal.any([signal, timeout]),
        });
      } catch (cause) {
        if (signal?.aborted) throw new Stopped();
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
      await discard(response.body);
      if (!response.ok) throw new AttemptFailed(response.status, `HTTP ${response.status}`, !retryable(response.status));
      return response.status;
    };
    try {
      const status = await pRetry(attempt, {
        retries: this.settings.attempts - 1,
        minTimeout: this.settings.backoffMs,
        factor: 2,
        shouldRetry: ({ error }) => error instanceof AttemptFailed && !error.final,
        ...(signal === undefined ? {} : { signal }),
      });
      return { ok: true, status, attempts };
    } catch (error) {
      // Never throws: the outcome is in the result.
      if (error instanceof AttemptFailed) return { ok: false, status: error.status, attempts, error: error.message };
      // Stopped during an attempt, or (p-retry rejects with the signal's reason) between two.
      if (error instanceof Stopped || signal?.aborted) return { ok: false, status: null, attempts, error: 'stopped before an answer', aborted: true };
      return { ok: false, status: null, attempts, error: `could not send to ${shownWebhookTarget(request.url)} (${(error as Error).name})` };
    }
  }
}
