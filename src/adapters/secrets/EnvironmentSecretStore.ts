import type { LlmProvider } from '../../domain/triggers/Trigger.js';
import type { SecretStore } from '../../ports/SecretStore.js';

const VARIABLES: Readonly<Record<LlmProvider, string>> = {
  anthropic: 'ANTHROPIC_API_KEY',
  openai: 'OPENAI_API_KEY',
  google: 'GOOGLE_API_KEY',
  custom: 'CUSTOM_API_KEY',
};

/** Provider secrets from environment variables (read once, at start-up). */
export class EnvironmentSecretStore implements SecretStore {
  readonly #values: Partial<Record<LlmProvider, string>>;

  constructor(env: Readonly<Record<string, string | undefined>>) {
    this.#values = {};
    for (const [provider, variable] of Object.entries(VARIABLES) as Array<[LlmProvider, string]>) {
      const value = env[variable]?.trim();
      if (value) this.#values[provider] = value;
    }
  }

  secretName(provider: LlmProvider): string {
    return VARIABLES[provider];
  }

  providerSecret(provider: LlmProvider): string | undefined {
    return this.#values[provider];
  }

  hasUsableSecret(provider: LlmProvider): boolean {
    // An OpenAI-compatible server of one's own (Ollama, vLLM…) often needs no key.
    return provider === 'custom' || this.#values[provider] !== undefined;
  }
}
