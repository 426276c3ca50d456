import { expect } from 'chai';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../../src/container/config.js';
import { loadStartFiles } from '../../../src/container/load-start-files.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';
import { tempDir } from '../../support/gateway-process.js';

/*
 * LLM_PROVIDER names the provider of the chat and of every job that names none. Set without the
 * provider's key, the service started without a word; each chat message was answered "Sorry, I
 * encountered an error" and each create-job refused with 400 "llm_provider anthropic has no
 * secret configured". Start-up now stops, naming the variable.
 */
describe('start-up: the default provider (LLM_PROVIDER) needs its key', () => {
  const KEYS = ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'CUSTOM_API_KEY'];
  const saved: Record<string, string | undefined> = {};
  beforeEach(() => {
    for (const name of KEYS) {
      saved[name] = process.env[name];
      delete process.env[name];
    }
  });
  afterEach(() => {
    for (const name of KEYS) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  const start = async (env: Record<string, string>) => {
    const dir = await tempDir('default-provider-key');
    const config = loadConfig({ DATA_DIR: join(dir, 'data'), TRIGGERS_FILE: join(dir, 'none.json'), CRONS_FILE: join(dir, 'none-crons.json'), ...env }, dir);
    return loadStartFiles(config, new RecordingLogger()).then(
      () => undefined,
      (error: unknown) => error,
    );
  };

  it('LLM_PROVIDER=anthropic without ANTHROPIC_API_KEY stops start-up with one line naming the key', async () => {
    const refused = await start({ LLM_PROVIDER: 'anthropic' });
    expect(refused).to.be.instanceOf(ConfigError);
    expect((refused as ConfigError).message).to.equal(
      'Invalid configuration:\n  - ANTHROPIC_API_KEY: required when LLM_PROVIDER is anthropic (the chat and every job that names no llm_provider use it); set it, or unset LLM_PROVIDER',
    );
  });

  it('starts with the key, without LLM_PROVIDER, and with custom, whose server may need no key', async () => {
    process.env.OPENAI_API_KEY = 'sk-test';
    expect(await start({ LLM_PROVIDER: 'openai' })).to.equal(undefined);
    expect(await start({})).to.equal(undefined);
    expect(await start({ LLM_PROVIDER: 'custom', LLM_BASE_URL: 'http://127.0.0.1:9/v1', LLM_MODEL: 'm' })).to.equal(undefined);
  });
});
