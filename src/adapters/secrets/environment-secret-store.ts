import type { NamedSecret, SecretContext } from '../../domain/jobs/redact-secrets.js';
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
 * The shortest service credential redacted wherever it appears. These are found by their
 * variable's name, whatever they hold: a short one is an ordinary word as often as a secret
 * (`POSTGRES_PASSWORD=postgres` would blank out every `postgres:16` of a compose file the agent
 * reads and writes back, `SORT_KEY=date` every date), while real tokens and generated secrets are
 * far longer. A shorter one is redacted only where the text says what it is (serviceSecrets).
 */
export const MIN_SERVICE_SECRET = 12;

/**
 * The contexts in which a variable's value is assigned to it (redact-secrets' assignmentSource):
 * an environment dump or `.env` file (`NAME=v`, also quoted, which a compose file's `- NAME=v`
 * holds too), INI and TOML (`NAME = v`), JSON (`"NAME": "v"`), YAML (`NAME: v`), Python's
 * `print(os.environ)` (`'NAME': 'v'`) and Ruby's hashes (`"NAME"=>"v"`).
 */
const assignments = (name: string): SecretContext[] => [{ assignedTo: name }];

/**
 * The contexts in which a URL's password stands: its user part (`app:v@`) and assigned to a
 * `password` (a `?password=v` parameter, `password: v` in YAML, `"password": "v"` in JSON…).
 */
const URL_PASSWORD: readonly SecretContext[] = [{ before: ':', after: '@' }, { assignedTo: 'password' }];

/**
 * The values of the service's own environment that no job log, summary or model may show. An
 * agent runs as the service's user and can read the service's environment
 * (`/proc/<pid>/environ`, the `.env` file): it never gets these values, but what it prints of
 * them is redacted as an `AGENT_*` value is. They are the variables named as credentials
 * (CREDENTIAL_NAME) and the password of any URL in the environment (`DATABASE_URL`'s, in its
 * user part or as `?password=`, as written there and percent-decoded). The `AGENT_*` variables
 * are the jobs' own (see agentVariables).
 *
 * Each is looked for trimmed (the form measured is the form matched):
 * - from MIN_SERVICE_SECRET characters on, wherever it appears;
 * - shorter, only in the context that says it is this credential, which an ordinary word never
 *   has (NamedSecret.context): a URL's password between the `:` and the `@` of its user part or
 *   assigned to a `password` (`postgres://app:s3cr3t@db` shows `postgres://app:[redacted
 *   DATABASE_URL password]@db`, `password: s3cr3t` shows `password: [redacted DATABASE_URL
 *   password]`), and a credential variable as assigned (`assignments`: `PGPASSWORD=s3cr3t`
 *   shows `PGPASSWORD=[redacted PGPASSWORD]`, `'PGPASSWORD': 's3cr3t'` shows `'PGPASSWORD':
 *   '[redacted PGPASSWORD]'`). Only the whole context with the value is found,
 *   never a piece of it: `All tests pass`, `the password`, `handled the POST` stay, and the
 *   `postgres` of `POSTGRES_PASSWORD=postgres` stays in `image: postgres:16`. So `env`, the
 *   service's `/proc/<pid>/environ` and the database URL printed show none of them; the same
 *   short value printed on its own is not found: it cannot be told from the word.
 */
const serviceSecrets = (env: Readonly<Record<string, string | undefined>>, providerVariables: ReadonlySet<string>): NamedSecret[] => {
  const found: NamedSecret[] = [];
  /** `value` (trimmed) wherever it appears when long enough, else in each of its `contexts`. */
  const add = (name: string, value: string, contexts: readonly SecretContext[]): void => {
    const secret = value.trim();
    if (secret === '') return;
    if (secret.length >= MIN_SERVICE_SECRET) found.push({ name, value: secret });
    else for (const context of contexts) found.push({ name, value: secret, context });
  };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || name.startsWith(AGENT_PREFIX) || providerVariables.has(name)) continue;
    if (CREDENTIAL_NAME.test(name)) add(name, value, assignments(name));
    if (!value.includes('://') || !URL.canParse(value)) continue;
    const url = new URL(value);
    // As written in the URL (percent-encoded) and decoded: a program prints either.
    const query = url.search
      .slice(1)
      .split('&')
      .filter((pair) => pair.startsWith('password='));
    const written = [url.password, ...query.map((pair) => pair.slice('password='.length))];
    const forms = new Set([...written, ...written.map(safeDecode), ...url.searchParams.getAll('password')]);
    for (const form of forms) add(`${name} password`, form, URL_PASSWORD);
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
