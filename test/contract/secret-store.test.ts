import { AI_PROVIDERS } from '../../src/adapters/ai/ai-providers.js';
import { EnvironmentSecretStore } from '../../src/adapters/secrets/environment-secret-store.js';
import { describeSecretStoreContract } from './secret-store.contract.js';

describeSecretStoreContract('environment variables, with the AI provider registry', (set) => {
  const keyVariable = (provider: string) => AI_PROVIDERS.find((entry) => entry.name === provider)?.keyVariable ?? `${provider.toUpperCase()}_API_KEY`;
  const env: Record<string, string | undefined> = {
    // the service's own settings, and names that only look like agent variables: none is an agent's
    DATABASE_URL: 'postgres://service-only',
    PATH: '/usr/bin:/bin',
    AGENT_: 'the prefix alone',
    agent_lower: 'lower case',
    AGENT_UNSET: undefined,
    ...Object.fromEntries(Object.entries(set.providers ?? {}).map(([provider, value]) => [keyVariable(provider), value])),
    ...set.agent,
  };
  return new EnvironmentSecretStore(env, AI_PROVIDERS);
});
