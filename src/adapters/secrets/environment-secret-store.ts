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
 * `SLACK_SIGNING_SECRET`, `CODEHOST_WEBHOOK_SECRET`, `METRICS_TOKEN`…, and a new channel's, named
 * the same way) and whatever else of the kind the service was started with (`PGPASSWORD`).
 */
const CREDENTIAL_NAME = /(?:TOKEN|SECRET|PASSWORD|_KEY)$/;

/**
 * The shortest service credential redacted. These are found by their variable's name, whatever
 * they hold: a short one is an ordinary word as often as a secret (`POSTGRES_PASSWORD=postgres`
 * would blank out every `postgres:16` of a compose file the agent reads and writes back,
 * `SORT_KEY=date` every date), while real tokens and generated secrets are far longer.
 */
export const MIN_SERVICE_SECRET = 12;

/**
 * The values of the service's own environment that no job log, summary or model may show. An
 * agent runs as the service's user and can read the service's environment
 * (`/proc/<pid>/environ`, the `.env` file): it never gets these values, but what it prints of
 * them is redacted as an `AGENT_*` value is. They are the variables named as credentials
 * (CREDENTIAL_NAME) and the password of any URL in the environment (`DATABASE_URL`'s, in its
 * user part or as `?password=`), each of at least MIN_SERVICE_SECRET characters. The `AGENT_*`
 * variables are the jobs' own (see agentVariables).
 */
const serviceSecrets = (env: Readonly<Record<string, string | undefined>>, providerVariables: ReadonlySet<string>): NamedSecret[] => {
  const found: NamedSecret[] = [];
  const add = (name: string, value: string): void => {
    if (value.trim().length >= MIN_SERVICE_SECRET) found.push({ name, value });
  };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || name.startsWith(AGENT_PREFIX) || providerVariables.has(name)) continue;
    if (CREDENTIAL_NAME.test(name)) add(name, value);
    if (!value.includes('://') || !URL.canParse(value)) continue;
    const url = new URL(value);
    for (const password of [url.password, url.searchParams.get('password') ?? '']) {
      if (password === '') continue;
      add(`${name} password`, password);
      const decoded = safeDecode(password);
      if (decoded !== password) add(`${name} password`, decoded);
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
