export interface AiImage {
  readonly mediaType: string;
  readonly data: Uint8Array;
}

export interface AiMessage {
  readonly role: 'user' | 'assistant';
  readonly text: string;
  /** Images sent with a user message. */
  readonly images?: readonly AiImage[];
}

/** A tool the model may call; `execute` runs it and returns what the model gets back. */
export interface AiTool {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the tool's input object. */
  readonly parameters: Readonly<Record<string, unknown>>;
  execute(input: Record<string, unknown>): Promise<unknown>;
}

export interface AiRequest {
  readonly system?: string;
  readonly messages: readonly AiMessage[];
  readonly tools?: readonly AiTool[];
  /** Model calls at most (tool round trips + the final answer). */
  readonly maxSteps?: number;
  /** Overrides of the configured defaults. */
  /** A provider name of the AI provider registry. */
  readonly provider?: string;
  readonly model?: string;
  readonly signal?: AbortSignal;
}

export interface AiResponse {
  readonly text: string;
  readonly steps: number;
  /** Every tool call the model made, in order. */
  readonly toolCalls: ReadonlyArray<{ readonly name: string; readonly input: unknown }>;
}

/** The AI layer: one call to an LLM, with tools run in a bounded loop. */
export interface AiClient {
  /**
   * Asks the model. Retries rate limits and server errors with backoff and gives up after a
   * timeout. Throws AiCallFailed (a DomainError) with its reason: `not_configured` (code
   * `not_configured`) when no provider, model, base URL or API key is set; otherwise code
   * `internal` with the cause and the reason `unreachable`, `timeout`, `refused` (a 4xx, with
   * its status), `unavailable` (408/429/5xx after the retries) or `other`. The message may quote
   * the provider: for logs, never for pages; show the reason instead.
   */
  generate(request: AiRequest): Promise<AiResponse>;
  /**
   * Optional: gets ready for the first call to the configured model (loads what it needs), so
   * that the first call does not pay for it. Never rejects; a configuration problem is the
   * first call's to report.
   */
  prepare?(): Promise<void>;
}
