import type { LlmProvider } from '../domain/triggers/Trigger.js';

/** The secrets agents receive: one per LLM provider. */
export interface SecretStore {
  /** The name of the variable that holds a provider's secret, for messages (never its value). */
  secretName(provider: LlmProvider): string;
  /** The secret, or undefined when it is not set. `custom` may legitimately have none. */
  providerSecret(provider: LlmProvider): string | undefined;
  /** Whether jobs for `provider` can run: its secret is set, or it does not need one. */
  hasUsableSecret(provider: LlmProvider): boolean;
}
