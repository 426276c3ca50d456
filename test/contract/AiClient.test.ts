import nock from 'nock';
import { VercelAiClient, type AiSettings } from '../../src/adapters/ai/VercelAiClient.js';
import { describeAiClientContract, type ProviderFake } from './AiClient.contract.js';

const HOST = 'https://llm.example.test';
const deep = (value: unknown): string => JSON.stringify(value);

const clientFor = (provider: string, model: string, baseUrl: string): VercelAiClient => {
  const none = { apiKey: undefined, baseUrl: undefined };
  const providers: AiSettings['providers'] = { anthropic: none, openai: none, google: none, custom: none, [provider]: { apiKey: 'test-key', baseUrl } };
  return new VercelAiClient({ provider, model, providers, timeoutMs: 10_000, maxRetries: 1 });
};

/** nock with static replies (reply callbacks stall request bodies under nock 15); bodies read from request events. */
const fakeFor = (path: string | RegExp, shapes: { text(text: string): object; toolCall(name: string, input: Record<string, unknown>): object; error: object }, readers: Pick<ProviderFake, 'carries' | 'carriesImage' | 'carriesToolResult'>): ProviderFake => {
  nock.disableNetConnect();
  const scope = nock(HOST);
  const requests: Array<Record<string, unknown>> = [];
  scope.on('request', (_req: unknown, _interceptor: unknown, body: string) => requests.push(JSON.parse(body) as Record<string, unknown>));
  return {
    requests,
    text: (text) => void scope.post(path).reply(200, shapes.text(text)),
    toolCall: (name, input) => void scope.post(path).reply(200, shapes.toolCall(name, input)),
    failure: (status, headers) => void scope.post(path).reply(status, shapes.error, headers),
    ...readers,
    done: () => {
      nock.cleanAll();
      nock.enableNetConnect();
    },
  };
};

const openAiShapes = {
  text: (text: string) => ({ id: 'c1', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }),
  toolCall: (name: string, input: Record<string, unknown>) => ({ id: 'c2', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name, arguments: JSON.stringify(input) } }] }, finish_reason: 'tool_calls' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }),
  error: { error: { message: 'server exploded', type: 'server_error', code: null } },
};
const openAiReaders = {
  carries: (body: Record<string, unknown>, text: string) => deep(body.messages).includes(text),
  carriesImage: (body: Record<string, unknown>, base64: string) => deep(body.messages).includes(base64) && deep(body.messages).includes('image_url'),
  carriesToolResult: (body: Record<string, unknown>, text: string) =>
    (body.messages as Array<{ role: string; content: unknown }>).some((m) => m.role === 'tool' && deep(m.content).includes(text)),
};

describeAiClientContract('openai (chat completions)', () => ({
  client: clientFor('openai', 'gpt-test', `${HOST}/v1`),
  fake: fakeFor('/v1/chat/completions', openAiShapes, openAiReaders),
}));

describeAiClientContract('custom (an OpenAI-compatible server)', () => ({
  client: clientFor('custom', 'llama-test', `${HOST}/ollama/v1`),
  fake: fakeFor('/ollama/v1/chat/completions', openAiShapes, openAiReaders),
}));

describeAiClientContract('anthropic (messages API)', () => ({
  client: clientFor('anthropic', 'claude-test', `${HOST}/v1`),
  fake: fakeFor(
    '/v1/messages',
    {
      text: (text) => ({ id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-test', content: [{ type: 'text', text }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } }),
      toolCall: (name, input) => ({ id: 'msg_2', type: 'message', role: 'assistant', model: 'claude-test', content: [{ type: 'tool_use', id: 'toolu_1', name, input }], stop_reason: 'tool_use', stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } }),
      error: { type: 'error', error: { type: 'api_error', message: 'server exploded' } },
    },
    {
      carries: (body, text) => deep(body.messages).includes(text) || deep(body.system).includes(text),
      carriesImage: (body, base64) => deep(body.messages).includes(base64) && deep(body.messages).includes('"type":"image"'),
      carriesToolResult: (body, text) => deep(body.messages).includes('tool_result') && deep(body.messages).includes(text),
    },
  ),
}));

describeAiClientContract('google (Gemini generateContent)', () => ({
  client: clientFor('google', 'gemini-test', `${HOST}/v1beta`),
  fake: fakeFor(
    '/v1beta/models/gemini-test:generateContent',
    {
      text: (text) => ({ candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 } }),
      toolCall: (name, args) => ({ candidates: [{ content: { role: 'model', parts: [{ functionCall: { name, args } }] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 } }),
      error: { error: { code: 500, message: 'server exploded', status: 'INTERNAL' } },
    },
    {
      carries: (body, text) => deep(body.contents).includes(text) || deep(body.systemInstruction).includes(text),
      carriesImage: (body, base64) => deep(body.contents).includes(base64) && deep(body.contents).includes('inlineData'),
      carriesToolResult: (body, text) => deep(body.contents).includes('functionResponse') && deep(body.contents).includes(text),
    },
  ),
}));
