import { expect } from 'chai';
import nock from 'nock';
import { AiCallFailed } from '../../src/domain/ai/ai-call-failed.js';
import { ScriptedAiClient } from '../fakes/scripted-ai-client.js';
import { startFakeOpenAi } from '../support/fake-open-ai.js';
import { VercelAiClient, type AiSettings } from '../../src/adapters/ai/vercel-ai-client.js';
import { describeAiClientContract, type ProviderFake } from './ai-client.contract.js';

const HOST = 'https://llm.example.test';
const deep = (value: unknown): string => JSON.stringify(value);

const clientFor = (provider: string, model: string, baseUrl: string): VercelAiClient => {
  const none = { apiKey: undefined, baseUrl: undefined };
  const providers: AiSettings['providers'] = { anthropic: none, openai: none, google: none, custom: none, [provider]: { apiKey: 'test-key', baseUrl } };
  // A short retry delay: the contract proves that a call is retried, not how long the SDK-like backoff waits (see below).
  return new VercelAiClient({ provider, model, providers, timeoutMs: 10_000, maxRetries: 1, retryDelayMs: 1 });
};

/** nock with static replies (reply callbacks stall request bodies under nock 15); bodies read from request events. */
const fakeFor = (
  path: string | RegExp,
  shapes: { text(text: string): object; toolCall(name: string, input: Record<string, unknown>): object; error: object; usedUp?: object },
  readers: Pick<ProviderFake, 'carries' | 'carriesImage' | 'carriesToolResult'>,
): ProviderFake => {
  if (!nock.isActive()) nock.activate();
  nock.disableNetConnect();
  const scope = nock(HOST);
  const requests: Array<Record<string, unknown>> = [];
  scope.on('request', (_req: unknown, _interceptor: unknown, body: string) => requests.push(JSON.parse(body) as Record<string, unknown>));
  return {
    requests,
    text: (text) => void scope.post(path).reply(200, shapes.text(text)),
    toolCall: (name, input) => void scope.post(path).reply(200, shapes.toolCall(name, input)),
    failure: (status, headers) => void scope.post(path).reply(status, shapes.error, headers),
    ...(shapes.usedUp !== undefined && { usedUp: () => void scope.post(path).reply(429, shapes.usedUp, { 'retry-after': '0' }) }),
    unreachable: () => void scope.post(path).replyWithError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' })),
    ...readers,
    done: () => {
      nock.cleanAll();
      nock.enableNetConnect();
      nock.restore();
    },
  };
};

const openAiShapes = {
  text: (text: string) => ({
    id: 'c1',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  }),
  toolCall: (name: string, input: Record<string, unknown>) => ({
    id: 'c2',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name, arguments: JSON.stringify(input) } }] },
        finish_reason: 'tool_calls',
      },
    ],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  }),
  error: { error: { message: 'server exploded', type: 'server_error', code: null } },
  usedUp: {
    error: {
      message: 'You exceeded your current quota, please check your plan and billing details.',
      type: 'insufficient_quota',
      param: null,
      code: 'insufficient_quota',
    },
  },
};
const openAiReaders = {
  carries: (body: Record<string, unknown>, text: string) => deep(body.messages).includes(text),
  carriesImage: (body: Record<string, unknown>, base64: string) => deep(body.messages).includes(base64) && deep(body.messages).includes('image_url'),
  carriesToolResult: (body: Record<string, unknown>, text: string) =>
    (body.messages as Array<{ role: string; content: unknown }>).some((m) => m.role === 'tool' && deep(m.content).includes(text)),
};

describeAiClientContract(
  'openai (chat completions)',
  () => ({
    client: clientFor('openai', 'gpt-test', `${HOST}/v1`),
    fake: fakeFor('/v1/chat/completions', openAiShapes, openAiReaders),
  }),
  { usedUpQuota: true },
);

describeAiClientContract(
  'custom (an OpenAI-compatible server)',
  () => ({
    client: clientFor('custom', 'llama-test', `${HOST}/ollama/v1`),
    fake: fakeFor('/ollama/v1/chat/completions', openAiShapes, openAiReaders),
  }),
  { usedUpQuota: true },
);

describeAiClientContract(
  'anthropic (messages API)',
  () => ({
    client: clientFor('anthropic', 'claude-test', `${HOST}/v1`),
    fake: fakeFor(
      '/v1/messages',
      {
        text: (text) => ({
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'claude-test',
          content: [{ type: 'text', text }],
          stop_reason: 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: 1, output_tokens: 1 },
        }),
        toolCall: (name, input) => ({
          id: 'msg_2',
          type: 'message',
          role: 'assistant',
          model: 'claude-test',
          content: [{ type: 'tool_use', id: 'toolu_1', name, input }],
          stop_reason: 'tool_use',
          stop_sequence: null,
          usage: { input_tokens: 1, output_tokens: 1 },
        }),
        error: { type: 'error', error: { type: 'api_error', message: 'server exploded' } },
        usedUp: {
          type: 'error',
          error: { type: 'rate_limit_error', message: "This request would exceed your organization's spend limit. Raise it in the Console." },
        },
      },
      {
        carries: (body, text) => deep(body.messages).includes(text) || deep(body.system).includes(text),
        carriesImage: (body, base64) => deep(body.messages).includes(base64) && deep(body.messages).includes('"type":"image"'),
        carriesToolResult: (body, text) => deep(body.messages).includes('tool_result') && deep(body.messages).includes(text),
      },
    ),
  }),
  { usedUpQuota: true },
);

describeAiClientContract('google (Gemini generateContent)', () => ({
  client: clientFor('google', 'gemini-test', `${HOST}/v1beta`),
  fake: fakeFor(
    '/v1beta/models/gemini-test:generateContent',
    {
      text: (text) => ({
        candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
      }),
      toolCall: (name, args) => ({
        candidates: [{ content: { role: 'model', parts: [{ functionCall: { name, args } }] }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
      }),
      error: { error: { code: 500, message: 'server exploded', status: 'INTERNAL' } },
    },
    {
      carries: (body, text) => deep(body.contents).includes(text) || deep(body.systemInstruction).includes(text),
      carriesImage: (body, base64) => deep(body.contents).includes(base64) && deep(body.contents).includes('inlineData'),
      carriesToolResult: (body, text) => deep(body.contents).includes('functionResponse') && deep(body.contents).includes(text),
    },
  ),
}));

/**
 * The scripted fake the chat unit tests use. Its "model" is its script: a tool call and the
 * answer after it are one step of the script, and the results of the tools it ran are what it
 * sends back (shown as a request after the one that called them).
 */
describeAiClientContract('the scripted fake the unit tests use', () => {
  const script: Array<{ text: string; calls?: Array<{ name: string; input: Record<string, unknown> }> }> = [];
  const client = new ScriptedAiClient(script);
  let callsAwaitAnswer = false;
  // images as base64, as a provider gets them (a Buffer's toJSON runs before the replacer: read the value from its holder)
  const body = (value: unknown): string =>
    JSON.stringify(value, function (this: Record<string, unknown>, key, v: unknown) {
      const original = this[key];
      return original instanceof Uint8Array ? Buffer.from(original).toString('base64') : v;
    });
  return {
    client,
    fake: {
      get requests() {
        const sent = client.requests.map((request) => ({ ...request }) as Record<string, unknown>);
        return client.toolResults.length === 0 ? sent : [...sent, { toolResults: client.toolResults }];
      },
      text: (text) => {
        if (callsAwaitAnswer) script[script.length - 1] = { ...script[script.length - 1], text };
        else script.push({ text });
        callsAwaitAnswer = false;
      },
      toolCall: (name, input) => {
        script.push({ text: '', calls: [{ name, input }] });
        callsAwaitAnswer = true;
      },
      carries: (request, text) => body(request.system).includes(text) || body(request.messages).includes(text),
      carriesImage: (request, base64) => body(request.messages).includes(base64),
      carriesToolResult: (request, text) => body(request.toolResults ?? null).includes(text),
      done: () => undefined,
    },
  };
});

describe('VercelAiClient: failures it classifies before or beyond the contract', () => {
  const none = { apiKey: undefined, baseUrl: undefined };
  const settings = (overrides: Partial<AiSettings>): AiSettings => ({
    provider: 'custom',
    model: 'm',
    providers: { anthropic: none, openai: none, google: none, custom: none },
    timeoutMs: 10_000,
    maxRetries: 0,
    ...overrides,
  });
  const failure = (client: VercelAiClient) => client.generate({ messages: [{ role: 'user', text: 'hi' }] }).catch((e: unknown) => e);

  it('is not configured without a provider, naming LLM_PROVIDER', async () => {
    const error = await failure(new VercelAiClient(settings({ provider: undefined })));
    expect(error).to.be.instanceOf(AiCallFailed).and.to.include({ reason: 'not_configured', code: 'not_configured' });
    expect((error as Error).message).to.contain('LLM_PROVIDER');
  });

  it('is not configured for the custom provider without a base URL, naming LLM_BASE_URL', async () => {
    const error = await failure(new VercelAiClient(settings({})));
    expect(error).to.include({ reason: 'not_configured' });
    expect((error as Error).message).to.contain('LLM_BASE_URL');
  });

  it('is not configured for a provider it does not know, naming it', async () => {
    const error = await failure(new VercelAiClient(settings({ provider: 'nobody' })));
    expect(error).to.be.instanceOf(AiCallFailed).and.to.include({ reason: 'not_configured' });
    expect((error as Error).message).to.equal('Unknown LLM provider: nobody');
  });

  it('prepare() resolves without a provider and with a configuration the first call then reports; a prepared client answers', async () => {
    await new VercelAiClient(settings({ provider: undefined })).prepare();
    const withoutBaseUrl = new VercelAiClient(settings({}));
    await withoutBaseUrl.prepare();
    expect((await failure(withoutBaseUrl)) as Error).to.include({ reason: 'not_configured' });
    await new VercelAiClient(settings({ provider: 'nobody' })).prepare();
    const llm = await startFakeOpenAi();
    try {
      llm.script([{ text: 'ready' }]);
      const client = new VercelAiClient(
        settings({ providers: { anthropic: none, openai: none, google: none, custom: { apiKey: 'k', baseUrl: llm.baseUrl } } }),
      );
      await client.prepare();
      expect(llm.requests, 'prepare() calls no model').to.deep.equal([]);
      expect((await client.generate({ messages: [{ role: 'user', text: 'hi' }] })).text).to.equal('ready');
      expect(llm.requests.map((r) => r.model)).to.deep.equal(['m']);
    } finally {
      await llm.close();
    }
  });

  it('is not configured when the provider has no API key, naming its variable and no SDK text', async () => {
    const saved = process.env.ANTHROPIC_API_KEY;
    delete process.env.ANTHROPIC_API_KEY;
    try {
      const error = await failure(new VercelAiClient(settings({ provider: 'anthropic' })));
      expect(error).to.include({ reason: 'not_configured', code: 'not_configured' });
      expect((error as Error).message).to.equal('No API key is configured for anthropic (ANTHROPIC_API_KEY)');
    } finally {
      if (saved !== undefined) process.env.ANTHROPIC_API_KEY = saved;
    }
  });

  it('classifies a provider that does not answer within the timeout as timeout', async () => {
    const llm = await startFakeOpenAi();
    try {
      llm.delayMs = 2000;
      const error = await failure(
        new VercelAiClient(
          settings({ timeoutMs: 200, providers: { anthropic: none, openai: none, google: none, custom: { apiKey: 'k', baseUrl: llm.baseUrl } } }),
        ),
      );
      expect(error).to.include({ reason: 'timeout', code: 'internal' });
      expect((error as Error).message).to.contain('no answer within 200 ms');
    } finally {
      await llm.close();
    }
  });
});

describe('VercelAiClient: retries of a model call', () => {
  const none = { apiKey: undefined, baseUrl: undefined };
  const clientOf = (baseUrl: string, overrides: Partial<AiSettings>): VercelAiClient =>
    new VercelAiClient({
      provider: 'custom',
      model: 'm',
      providers: { anthropic: none, openai: none, google: none, custom: { apiKey: 'k', baseUrl } },
      timeoutMs: 20_000,
      maxRetries: 2,
      ...overrides,
    });

  it('waits retryDelayMs before the first retry and twice as long before the next one', async () => {
    const llm = await startFakeOpenAi();
    try {
      llm.script([{ status: 500 }, { status: 500 }, { text: 'third time' }]);
      const started = performance.now();
      const response = await clientOf(llm.baseUrl, { retryDelayMs: 150 }).generate({ messages: [{ role: 'user', text: 'hi' }] });
      expect(response.text).to.equal('third time');
      expect(llm.requests).to.have.length(3);
      expect(performance.now() - started, 'ms for three attempts').to.be.at.least(150 + 300);
    } finally {
      await llm.close();
    }
  });

  it("follows the provider's retry-after-ms over its own delay", async () => {
    const llm = await startFakeOpenAi();
    try {
      llm.script([{ status: 429, headers: { 'retry-after-ms': '0' } }, { text: 'right away' }]);
      // Its own delay would outlast the call's time limit: only the header lets it finish.
      const response = await clientOf(llm.baseUrl, { retryDelayMs: 60_000, timeoutMs: 10_000 }).generate({ messages: [{ role: 'user', text: 'hi' }] });
      expect(response.text).to.equal('right away');
      expect(llm.requests).to.have.length(2);
    } finally {
      await llm.close();
    }
  });

  it('runs the tools of a step once when the next step is retried', async () => {
    const llm = await startFakeOpenAi();
    try {
      llm.script([{ toolCalls: [{ name: 'count', arguments: {} }] }, { status: 503 }, { text: 'counted' }]);
      let runs = 0;
      const response = await clientOf(llm.baseUrl, { retryDelayMs: 1 }).generate({
        messages: [{ role: 'user', text: 'count' }],
        tools: [{ name: 'count', description: 'Counts', parameters: { type: 'object', properties: {} }, execute: async () => ({ runs: ++runs }) }],
        maxSteps: 3,
      });
      expect(response.text).to.equal('counted');
      expect(runs, 'tool runs').to.equal(1);
      expect(llm.requests).to.have.length(3);
    } finally {
      await llm.close();
    }
  });
});
