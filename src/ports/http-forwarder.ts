export interface OutboundRequest {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  /** Exactly the headers to send (content-type is added for a JSON body). */
  readonly headers: Readonly<Record<string, string>>;
  /** JSON body for POST; GET sends none. */
  readonly json?: unknown;
}

export interface OutboundResult {
  readonly ok: boolean;
  /** Last HTTP status, or null when no response arrived (network error, timeout). */
  readonly status: number | null;
  readonly attempts: number;
  /** Why it failed, when it did. */
  readonly error?: string;
  /** True when `signal` stopped it (no answer taken, no attempt made after). */
  readonly aborted?: boolean;
}

/** Sends outbound webhooks. */
export interface HttpForwarder {
  /**
   * Sends the request, retrying network errors, timeouts, 429 and 5xx with exponential
   * backoff up to the adapter's attempt limit. Never throws: the outcome is in the result.
   * Other 4xx answers are final and not retried. When `signal` aborts, the attempt under way
   * is cut off and none is made after it: the result says `aborted`.
   */
  send(request: OutboundRequest, signal?: AbortSignal): Promise<OutboundResult>;
}
