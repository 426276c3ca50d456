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
  /** The multipart requests to /v1/audio/transcriptions, read as OpenAI reads them. */
  readonly transcriptions: Transcription[];
  /** What /v1/audio/transcriptions answers (the transcript). */
  transcript: string;
  /** Failures /v1/audio/transcriptions answers first, in order (then the transcript again). */
  readonly transcriptionFailures: Array<{ readonly status: number; readonly body?: unknown }>;
  close(): Promise<void>;
}

/** One transcription request: its form fields, the file's bytes and name, and the key it carried. */
export interface Transcription {
  readonly model: string;
  readonly fileName: string;
  readonly fileType: string;
  readonly data: Buffer;
  readonly fields: Record<string, string>;
  readonly authorization: string | undefined;
}

/**
 * OpenAI's `POST /v1/audio/transcriptions`: a multipart form with `file` and `model` (400 with
 * OpenAI's error shape when either is missing), answered `{text, …}` (the verbose_json shape
 * when asked for it).
 */
const answerTranscription = async (
  req: import('node:http').IncomingMessage,
  raw: Buffer,
  fake: Pick<FakeOpenAi, 'transcriptions' | 'transcript' | 'transcriptionFailures'>,
): Promise<{ status: number; body: unknown }> => {
  const invalid = (message: string) => ({ status: 400, body: { error: { message, type: 'invalid_request_error', param: null, code: null } } });
  let form: FormData;
  try {
    form = await new Request('http://fake/v1/audio/transcriptions', {
      method: 'POST',
      headers: { 'content-type': String(req.headers['content-type'] ?? '') },
      body: raw,
    }).formData();
  } catch {
    return invalid('Could not parse multipart form');
  }
  const file = form.get('file');
  const model = form.get('model');
  if (!(file instanceof File)) return invalid("Missing required parameter: 'file'.");
  if (typeof model !== 'string' || model === '') return invalid("Missing required parameter: 'model'.");
  const fields: Record<string, string> = {};
  for (const [name, value] of form.entries()) if (typeof value === 'string') fields[name] = value;
  fake.transcriptions.push({
    model,
    fileName: file.name,
    fileType: file.type,
    data: Buffer.from(await file.arrayBuffer()),
    fields,
    authorization: req.headers.authorization,
  });
  const failure = fake.transcriptionFailures.shift();
  if (failure) return { status: failure.status, body: failure.body ?? { error: { message: 'failure', type: 'server_error', code: null } } };
  const answer = fake.transcript;
  return fields.response_format === 'verbose_json'
    ? { status: 200, body: { task: 'transcribe', language: 'english', duration: 2.5, text: answer, segments: [] } }
    : { status: 200, body: { text: answer } };
};

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
    transcriptions: [],
    transcript: '',
    transcriptionFailures: [],
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
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method === 'POST' && req.url?.endsWith('/audio/transcriptions')) {
        void answerTranscription(req, Buffer.concat(chunks), fake).then(({ status, body }) => {
          res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        });
        return;
      }
      const raw = Buffer.concat(chunks).toString();
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
