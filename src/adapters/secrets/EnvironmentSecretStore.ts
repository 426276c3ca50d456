import type { NamedSecret } from '../../domain/jobs/redactSecrets.js';
import type { LlmProvider } from '../../domain/triggers/Trigger.js';
import type { AgentVariable, SecretStore } from '../../ports/SecretStore.js';

const VARIABLES: Readonly<Record<LlmProvider, string>> = {
  anthropic: 'ANTHROPIC_API_KEY',
  openai: 'OPENAI_API_KEY',
  google: 'GOOGLE_API_KEY',
  custom: 'CUSTOM_API_KEY',
};

const AGENT_PREFIX = 'AGENT_';
const OFFERED_PREFIX = 'AGENT_LLM_';

/** Provider secrets and agent variables from environment variables (read once, at start-up). */
export class EnvironmentSecretStore implements SecretStore {
  readonly #values: Partial<Record<LlmProvider, string>>;
  readonly #agent: readonly AgentVariable[];

  constructor(env: Readonly<Record<string, string | undefined>>) {
    this.#values = {};
    for (const [provider, variable] of Object.entries(VARIABLES) as Array<[LlmProvider, string]>) {
      const value = env[variable]?.trim();
      if (value) this.#values[provider] = value;
    }
    // Values are passed as set (not trimmed): a job may need them byte for byte.
    this.#agent = Object.entries(env)
      .filter((entry): entry is [string, string] => entry[0].startsWith(AGENT_PREFIX) && entry[0].length > AGENT_PREFIX.length && entry[1] !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, value]) => ({ name, value, offeredToModel: name.startsWith(OFFERED_PREFIX) }));
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

  agentVariables(): readonly AgentVariable[] {
    return this.#agent;
  }

  redactedSecrets(): readonly NamedSecret[] {
    const providers = (Object.entries(this.#values) as Array<[LlmProvider, string]>).map(([provider, value]) => ({ name: VARIABLES[provider], value }));
    return [...this.#agent.filter((variable) => !variable.offeredToModel).map(({ name, value }) => ({ name, value })), ...providers];
  }
}
