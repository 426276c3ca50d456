import { expect } from 'chai';
import { builtInAgentProblem } from '../../../src/container/bindings/job-bindings.js';
import type { AppConfig } from '../../../src/container/config.js';

const withBaseUrls = (baseUrls: Record<string, string | undefined>): AppConfig => ({ llm: { baseUrls } }) as unknown as AppConfig;

describe('builtInAgentProblem (which jobs the built-in agent cannot run)', () => {
  it('names the missing server URL of custom, then its missing model; the vendors need neither', () => {
    const none = builtInAgentProblem(withBaseUrls({}));
    expect(none('custom', 'llama3')).to.equal('the built-in agent has no server URL for it (set CUSTOM_BASE_URL or LLM_BASE_URL)');
    const served = builtInAgentProblem(withBaseUrls({ custom: 'http://127.0.0.1:11434/v1' }));
    expect(served('custom', undefined)).to.equal('it has no default model: name one in llm_model');
    expect(served('custom', 'llama3')).to.equal(undefined);
    for (const provider of ['anthropic', 'openai', 'google']) expect(none(provider, undefined), provider).to.equal(undefined);
  });
});
