import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer: text, or tool calls (arguments as an object; sent as the JSON string OpenAI uses). */
export type FakeAnswer =
  | { readonly text: string }
  | { readonly toolCalls: ReadonlyArray<{ readonly name: string; readonly arguments: Record<string, unknown> }> }
  | { readonly status: number; readonly body?: unknown; readonly headers?: Record<string, string> };

export interface FakeOpenAi {
  /** `http://127.0.0.1:<port>/v1`, the base URL an OpenAI-compatible client takes. */
  readonly baseUrl: string;
  /** The parsed bodies of every /v1/chat/completions request. */
  readonly requests: Array<{ model: string; messages: Array<Record<string, unknown>>; tools?: unknown[] }>;
  /** Answers given in order; when they run out, the last one repeats. */
  script(answers: FakeAnswer[]): void;
  /** Delay before each answer. */
  delayMs: number;
  /**
   * Holds every answer (requests are still recorded) until the returned function is called:
   * what happens before the model answers is then certain, however slow the machine.
   */
  hold(): () => void;
  /** The most requests that were being answered at the same time, so far. */
  readonly maxInFlight: number;
  close(): Promise<void>;
}

/** A loopback OpenAI-compatible chat completions server speaking the real response shapes. */
export const startFakeOpenAi = async (): Promise<FakeOpenAi> => {
  let answers: FakeAnswer[] = [{ text: 'ok' }];
  let calls = 0;
  let inFlight = 0;
  let held: Promise<void> = Promise.resolve();
  const fake: Omit<FakeOpenAi, 'baseUrl' | 'close'> = {
    requests: [],
    script: (next) => ((answers = [...next]), (calls = 0)),
    delayMs: 0,
    maxInFlight: 0,
    hold: () => {
      let release = (): void => undefined;
      held = new Promise<void>((done) => (release = done));
      return () => {
        held = Promise.resolve();
        release();
      };
    },
  };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found', type: 'invalid_request_error' } }));
        return;
      }
      const body = JSON.parse(raw) as FakeOpenAi['requests'][number];
      fake.requests.push(body);
      const answer = answers[Math.min(calls, answers.length - 1)];
      calls++;
      inFlight++;
      (fake as { maxInFlight: number }).maxInFlight = Math.max(fake.maxInFlight, inFlight);
      res.once('close', () => inFlight--);
      const answerAfterDelay = (): NodeJS.Timeout =>
        setTimeout(() => {
          if ('status' in answer) {
            res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
            res.end(JSON.stringify(answer.body ?? { error: { message: 'failure', type: 'server_error', code: null } }));
            return;
          }
          const message =
            'text' in answer
              ? { role: 'assistant', content: answer.text }
              : {
                  role: 'assistant',
                  content: null,
                  tool_calls: answer.toolCalls.map((call, i) => ({
                    id: `call_${calls}_${i}`,
                    type: 'function',
                    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
                  })),
                };
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              id: `chatcmpl-${calls}`,
              object: 'chat.completion',
              created: Math.floor(Date.now() / 1000),
              model: body.model,
              choices: [{ index: 0, message, finish_reason: 'text' in answer ? 'stop' : 'tool_calls' }],
              usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
            }),
          );
        }, fake.delayMs);
      void held.then(answerAfterDelay);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(fake, {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }) as FakeOpenAi;
};
