import type { NamedSecret } from '../../domain/jobs/redact-secrets.js';
import type { AgentVariable, SecretStore } from '../../ports/secret-store.js';

/** Where a provider's secret is: the AI provider registry's entry (adapters/ai/ai-providers.ts), given by the container. */
export interface ProviderSecret {
  readonly name: string;
  readonly keyVariable: string;
  /** The provider may run without a key. */
  readonly keyOptional: boolean;
}

const AGENT_PREFIX = 'AGENT_';
const OFFERED_PREFIX = 'AGENT_LLM_';

/**
 * Names of variables that hold a credential by their own name: the service's (`TELEGRAM_BOT_TOKEN`,
 * `SLACK_SIGNING_SECRET`, `CODEHOST_WEBHOOK_SECRET`, `ADMIN_PASSWORD`, `METRICS_TOKEN`…, and a
 * new channel's, named the same way) and whatever else of the kind the service was started with.
 */
const CREDENTIAL_NAME = /(?:_TOKEN|_SECRET|_PASSWORD|_KEY)$/;

/**
 * The values of the service's own environment that no job log, summary or model may show. An
 * agent runs as the service's user and can read the service's environment
 * (`/proc/<pid>/environ`, the `.env` file): it never gets these values, but what it prints of
 * them is redacted as an `AGENT_*` value is. The `AGENT_*` variables are the jobs' own (see
 * agentVariables); the password of `DATABASE_URL` is one too.
 */
const serviceSecrets = (env: Readonly<Record<string, string | undefined>>, providerVariables: ReadonlySet<string>): NamedSecret[] => {
  const found: NamedSecret[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value.trim() === '' || name.startsWith(AGENT_PREFIX) || providerVariables.has(name)) continue;
    if (CREDENTIAL_NAME.test(name)) found.push({ name, value });
  }
  const url = env.DATABASE_URL;
  if (url !== undefined && URL.canParse(url)) {
    const password = new URL(url).password;
    if (password !== '') {
      found.push({ name: 'DATABASE_URL password', value: password });
      const decoded = safeDecode(password);
      if (decoded !== password) found.push({ name: 'DATABASE_URL password', value: decoded });
    }
  }
  return found;
};

const safeDecode = (text: string): string => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

/**
 * Provider secrets and agent variables from environment variables (read once, at start-up); the
 * service's own credentials there are redacted too (serviceSecrets).
 */
export class EnvironmentSecretStore implements SecretStore {
  readonly #providers: ReadonlyMap<string, ProviderSecret>;
  readonly #values = new Map<string, string>();
  readonly #agent: readonly AgentVariable[];
  readonly #service: readonly NamedSecret[];

  constructor(env: Readonly<Record<string, string | undefined>>, providers: readonly ProviderSecret[]) {
    this.#providers = new Map(providers.map((provider) => [provider.name, provider]));
    this.#service = serviceSecrets(env, new Set(providers.map((provider) => provider.keyVariable)));
    for (const provider of providers) {
      const value = env[provider.keyVariable]?.trim();
      if (value) this.#values.set(provider.name, value);
    }
    // Values are passed as set (not trimmed): a job may need them byte for byte.
    this.#agent = Object.entries(env)
      .filter((entry): entry is [string, string] => entry[0].startsWith(AGENT_PREFIX) && entry[0].length > AGENT_PREFIX.length && entry[1] !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, value]) => ({ name, value, offeredToModel: name.startsWith(OFFERED_PREFIX) }));
  }

  secretName(provider: string): string {
    return this.#providers.get(provider)?.keyVariable ?? `${provider.toUpperCase()}_API_KEY`;
  }

  providerSecret(provider: string): string | undefined {
    return this.#values.get(provider);
  }

  hasUsableSecret(provider: string): boolean {
    // An OpenAI-compatible server of one's own (Ollama, vLLM…) often needs no key.
    return this.#providers.get(provider)?.keyOptional === true || this.#values.has(provider);
  }

  agentVariables(): readonly AgentVariable[] {
    return this.#agent;
  }

  redactedSecrets(): readonly NamedSecret[] {
    const providers = [...this.#values].map(([provider, value]) => ({ name: this.secretName(provider), value }));
    return [...this.#agent.filter((variable) => !variable.offeredToModel).map(({ name, value }) => ({ name, value })), ...providers, ...this.#service];
  }
}
