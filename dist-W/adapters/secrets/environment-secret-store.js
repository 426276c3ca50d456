const AGENT_PREFIX = 'AGENT_';
const OFFERED_PREFIX = 'AGENT_LLM_';
/** Provider secrets and agent variables from environment variables (read once, at start-up). */
export class EnvironmentSecretStore {
    #providers;
    #values = new Map();
    #agent;
    constructor(env, providers) {
        this.#providers = new Map(providers.map((provider) => [provider.name, provider]));
        for (const provider of providers) {
            const value = env[provider.keyVariable]?.trim();
            if (value)
                this.#values.set(provider.name, value);
        }
        // Values are passed as set (not trimmed): a job may need them byte for byte.
        this.#agent = Object.entries(env)
            .filter((entry) => entry[0].startsWith(AGENT_PREFIX) && entry[0].length > AGENT_PREFIX.length && entry[1] !== undefined)
            .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
            .map(([name, value]) => ({ name, value, offeredToModel: name.startsWith(OFFERED_PREFIX) }));
    }
    secretName(provider) {
        return this.#providers.get(provider)?.keyVariable ?? `${provider.toUpperCase()}_API_KEY`;
    }
    providerSecret(provider) {
        return this.#values.get(provider);
    }
    hasUsableSecret(provider) {
        // An OpenAI-compatible server of one's own (Ollama, vLLM…) often needs no key.
        return this.#providers.get(provider)?.keyOptional === true || this.#values.has(provider);
    }
    agentVariables() {
        return this.#agent;
    }
    redactedSecrets() {
        const providers = [...this.#values].map(([provider, value]) => ({ name: this.secretName(provider), value }));
        return [...this.#agent.filter((variable) => !variable.offeredToModel).map(({ name, value }) => ({ name, value })), ...providers];
    }
}
//# sourceMappingURL=environment-secret-store.js.map