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
}

/** Sends outbound webhooks. */
export interface HttpForwarder {
  /**
   * Sends the request, retrying network errors, timeouts, 429 and 5xx with exponential
   * backoff up to the adapter's attempt limit. Never throws: the outcome is in the result.
   * Other 4xx answers are final and not retried.
   */
  send(request: OutboundRequest): Promise<OutboundResult>;
}
