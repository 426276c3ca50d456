import { expect } from 'chai';
import type { SecretStore } from '../../src/ports/secret-store.js';

/** What an operator set: provider secrets by provider name, and `AGENT_*` variables by name. */
export interface SecretsSet {
  readonly providers?: Readonly<Record<string, string>>;
  readonly agent?: Readonly<Record<string, string>>;
}

/**
 * The behaviour every SecretStore adapter must have. `make` gives a store holding exactly what
 * was set (with whatever else its source holds that is no agent's: the service's own settings).
 * It uses the registry's providers: `anthropic` and `openai` need a secret, `custom` may run
 * without one.
 */
export const describeSecretStoreContract = (name: string, make: (set: SecretsSet) => SecretStore): void => {
  describe(`SecretStore contract: ${name}`, () => {
    it("gives a provider's secret when it is set, and undefined when it is not or is blank", () => {
      const store = make({ providers: { anthropic: 'sk-ant-1234', openai: '   ' } });
      expect(store.providerSecret('anthropic')).to.equal('sk-ant-1234');
      expect(store.providerSecret('openai'), 'blank').to.equal(undefined);
      expect(store.providerSecret('google')).to.equal(undefined);
      expect(store.providerSecret('custom')).to.equal(undefined);
      expect(store.providerSecret('nobody')).to.equal(undefined);
    });

    it('lets jobs run for a provider whose secret is set or that needs none, and for no other', () => {
      const store = make({ providers: { anthropic: 'sk-ant-1234', openai: ' ' } });
      expect(store.hasUsableSecret('anthropic'), 'set').to.equal(true);
      expect(store.hasUsableSecret('openai'), 'blank').to.equal(false);
      expect(store.hasUsableSecret('google'), 'not set').to.equal(false);
      expect(store.hasUsableSecret('custom'), 'needs none').to.equal(true);
      expect(store.hasUsableSecret('nobody'), 'unknown').to.equal(false);
      expect(make({ providers: { custom: 'ollama-key' } }).providerSecret('custom'), 'custom may have one all the same').to.equal('ollama-key');
    });

    it("names the variable that holds a provider's secret, set or not, and never says its value", () => {
      const store = make({ providers: { anthropic: 'sk-ant-1234' } });
      for (const provider of ['anthropic', 'openai', 'custom']) {
        const variable = store.secretName(provider);
        expect(variable, provider).to.match(/^[A-Z][A-Z0-9_]*$/);
        expect(variable).not.to.contain('sk-ant-1234');
      }
      expect(new Set(['anthropic', 'openai', 'google', 'custom'].map((provider) => store.secretName(provider))).size, 'one variable each').to.equal(4);
    });

    it('lists the AGENT_* variables sorted by name, values as set, offering only AGENT_LLM_* to the model', () => {
      const store = make({
        providers: { openai: 'sk-openai-9999' },
        agent: { AGENT_ZULU: 'z', AGENT_LLM_SEARCH_KEY: 'offered-3b9d', AGENT_DEPLOY_TOKEN: '  spaced "quoted"\n' },
      });
      expect(store.agentVariables()).to.deep.equal([
        { name: 'AGENT_DEPLOY_TOKEN', value: '  spaced "quoted"\n', offeredToModel: false },
        { name: 'AGENT_LLM_SEARCH_KEY', value: 'offered-3b9d', offeredToModel: true },
        { name: 'AGENT_ZULU', value: 'z', offeredToModel: false },
      ]);
    });

    it('has no agent variables when none is set, and nothing to redact when no secret is set', () => {
      const store = make({});
      expect(store.agentVariables()).to.deep.equal([]);
      expect(store.redactedSecrets()).to.deep.equal([]);
    });

    it('redacts the hidden AGENT_* values and every provider secret set, by name; never the AGENT_LLM_* values the model may read', () => {
      const store = make({
        providers: { anthropic: 'sk-ant-1234', openai: 'sk-openai-9999' },
        agent: { AGENT_DEPLOY_TOKEN: 'hidden-7c1e', AGENT_PIN: '42', AGENT_LLM_SEARCH_KEY: 'offered-3b9d' },
      });
      const redacted = store.redactedSecrets();
      expect(redacted).to.have.deep.members([
        { name: 'AGENT_DEPLOY_TOKEN', value: 'hidden-7c1e' },
        { name: 'AGENT_PIN', value: '42' },
        { name: store.secretName('anthropic'), value: 'sk-ant-1234' },
        { name: store.secretName('openai'), value: 'sk-openai-9999' },
      ]);
      expect(redacted.map((secret) => secret.value)).not.to.include('offered-3b9d');
    });
  });
};
