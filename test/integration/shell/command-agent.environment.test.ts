import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { COMMAND_AGENT_MAX_PROMPT_BYTES, CommandAgent } from '../../../src/adapters/jobs/command-agent.js';
import { EnvironmentSecretStore } from '../../../src/adapters/secrets/environment-secret-store.js';
import { ChildProcessShellExecutor } from '../../../src/adapters/shell/child-process-shell-executor.js';
import type { Job } from '../../../src/domain/jobs/job.js';
import { tempDir } from '../../support/gateway-process.js';
import { AI_PROVIDERS } from '../../../src/adapters/ai/ai-providers.js';

/** Service secrets set in the gateway's own environment while the agent runs. */
const SERVICE_SECRETS: Record<string, string> = {
  CODEHOST_WEBHOOK_SECRET: 'codehost-webhook-secret-value',
  CODEHOST_TOKEN: 'codehost-token-value',
  DATABASE_URL: 'postgres://user:database-password-value@db/gw',
  MESSAGING_BOT_TOKEN: '123456:messaging-bot-token-value',
  MESSAGING_WEBHOOK_SECRET: 'messaging-webhook-secret-value',
  TELEGRAM_BOT_TOKEN: '123456:telegram-bot-token-value',
  TELEGRAM_WEBHOOK_SECRET: 'telegram-webhook-secret-value',
  METRICS_TOKEN: 'metrics-token-value',
  ANTHROPIC_API_KEY: 'anthropic-key-value',
};

const job = (llmProvider: Job['llmProvider']): Job => ({
  id: '40000000-0000-4000-8000-000000000001',
  job: 'Fix the bug',
  status: 'running',
  source: { kind: 'api' },
  llmProvider,
  llmModel: null,
  branch: 'job/40000000-0000-4000-8000-000000000001',
  prUrl: null,
  runUrl: null,
  summary: null,
  error: null,
  log: null,
  createdAt: new Date(),
  updatedAt: new Date(),
});

describe("CommandAgent (the local runner's JOB_AGENT_COMMAND) on a real /bin/sh", () => {
  const saved: Record<string, string | undefined> = {};
  beforeEach(() => {
    for (const [name, value] of Object.entries(SERVICE_SECRETS)) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
  });
  afterEach(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it("gets none of the service's secrets, only its job variables and its own provider's key", async () => {
    const dir = await tempDir('command-agent');
    const secrets = new EnvironmentSecretStore({ ...process.env, OPENAI_API_KEY: 'openai-key-for-the-job' }, AI_PROVIDERS);
    const agent = new CommandAgent('env > env.txt', 10_000, new ChildProcessShellExecutor(), secrets);
    const outcome = await agent.run(job('openai'), dir, new AbortController().signal);
    expect(outcome.ok, outcome.error ?? '').to.equal(true);
    const env = await readFile(join(dir, 'env.txt'), 'utf8');
    for (const [name, value] of Object.entries(SERVICE_SECRETS)) {
      expect(env, name).to.not.contain(`${name}=`);
      expect(env, name).to.not.contain(value);
    }
    expect(env).to.contain('OPENAI_API_KEY=openai-key-for-the-job');
    expect(env).to.contain('JOB_PROMPT=Fix the bug');
  });

  it('gets a prompt of COMMAND_AGENT_MAX_PROMPT_BYTES whole in JOB_PROMPT; one byte more and the system refuses to start it (what CreateJob refuses up front)', async () => {
    const run = async (bytes: number) => {
      const dir = await tempDir('command-agent-prompt');
      const agent = new CommandAgent('printf %s "$JOB_PROMPT" | wc -c', 10_000, new ChildProcessShellExecutor(), new EnvironmentSecretStore({}, AI_PROVIDERS));
      return agent.run({ ...job(null), job: 'p'.repeat(bytes) }, dir, new AbortController().signal);
    };
    const longest = await run(COMMAND_AGENT_MAX_PROMPT_BYTES);
    expect(longest.ok).to.equal(true);
    expect(longest.log.trim()).to.equal(String(COMMAND_AGENT_MAX_PROMPT_BYTES));
    const failure = await run(COMMAND_AGENT_MAX_PROMPT_BYTES + 1).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(failure?.message).to.include('E2BIG');
  });
});
