import { expect } from 'chai';
import { checkTriggerSecrets } from '../../../../src/application/triggers/check-trigger-secrets.js';
import { EnvironmentSecretStore } from '../../../../src/adapters/secrets/environment-secret-store.js';
import { validateTriggers } from '../../../../src/domain/triggers/validate-triggers.js';
import { triggerCatalog } from '../../../../src/container/trigger-catalog.js';
import { AI_PROVIDERS } from '../../../../src/adapters/ai/ai-providers.js';

describe('checkTriggerSecrets', () => {
  const { triggers } = validateTriggers(
    [
      {
        name: 'a',
        watch_path: '/webhook',
        enabled: true,
        actions: [
          { type: 'command', command: 'ls' },
          { type: 'agent', job: 'x', llm_provider: 'google' },
        ],
      },
      { name: 'off', watch_path: '/webhook', enabled: false, actions: [{ type: 'agent', job: 'x', llm_provider: 'anthropic' }] },
      { name: 'own-server', watch_path: '/webhook', enabled: true, actions: [{ type: 'agent', job: 'x', llm_provider: 'custom' }] },
      { name: 'default', watch_path: '/webhook', enabled: true, actions: [{ type: 'agent', job: 'x' }] },
    ],
    'config/TRIGGERS.json',
    triggerCatalog(),
  );

  it('names the file, the trigger, the action and the missing variable of an enabled agent action', () => {
    expect(checkTriggerSecrets(triggers, new EnvironmentSecretStore({}, AI_PROVIDERS), 'config/TRIGGERS.json')).to.deep.equal([
      'config/TRIGGERS.json: trigger #0 "a": actions[1].llm_provider: google needs the secret GOOGLE_API_KEY, which is not set',
    ]);
  });

  it('is satisfied once the secret is set', () => {
    expect(checkTriggerSecrets(triggers, new EnvironmentSecretStore({ GOOGLE_API_KEY: 'g' }, AI_PROVIDERS), 'f')).to.deep.equal([]);
  });
});
