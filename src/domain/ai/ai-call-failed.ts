import { DomainError } from '../errors/domain-error.js';

/**
 * Why a call to an AI provider failed, as far as an operator can act on it:
 * - `not_configured`: no provider, model, base URL or API key is set for it;
 * - `unreachable`: no connection to the provider (base URL, DNS, network, TLS);
 * - `timeout`: connected, but no answer within the time limit;
 * - `refused`: the provider answered 4xx (API key, model name, or a request it will not take);
 * - `unavailable`: the provider kept answering 408, 429 or 5xx (overloaded or failing) after the retries;
 * - `other`: anything else (an answer that could not be read, a cancellation, a bug).
 */
export type AiFailureReason = 'not_configured' | 'unreachable' | 'timeout' | 'refused' | 'unavailable' | 'other';

/**
 * A failed AI call, classified where the provider's answer is known (the AI adapter).
 * `message` may quote the provider (for the log and a job's error); `reason` and `httpStatus`
 * are what may be shown to a user. `not_configured` keeps that code (our own text, a 501);
 * every other reason is `internal`.
 */
export class AiCallFailed extends DomainError {
  readonly reason: AiFailureReason;
  /** The provider's HTTP status, when it answered. */
  readonly httpStatus: number | undefined;

  constructor(reason: AiFailureReason, message: string, options?: { cause?: unknown; httpStatus?: number }) {
    super(reason === 'not_configured' ? 'not_configured' : 'internal', message, options);
    this.name = 'AiCallFailed';
    this.reason = reason;
    this.httpStatus = options?.httpStatus;
  }
}

/** The reason of any failure of an AI call: a DomainError `not_configured` counts as one too. */
export const aiFailureReason = (error: unknown): AiFailureReason => {
  if (error instanceof AiCallFailed) return error.reason;
  if (error instanceof DomainError && error.code === 'not_configured') return 'not_configured';
  return 'other';
};
