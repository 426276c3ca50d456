import { expect } from 'chai';
import { VercelAiTranscriber } from '../../src/adapters/ai/vercel-ai-transcriber.js';
import type { AiCallFailed } from '../../src/domain/ai/ai-call-failed.js';
import { FakeTranscriber } from '../fakes/fake-transcriber.js';
import { startFakeOpenAi } from '../support/fake-open-ai.js';
import { describeTranscriberContract } from './transcriber.contract.js';

/** The first bytes of an Ogg/Opus file (Telegram's voice messages), then a marker per clip. */
const OGG_HEADER = Buffer.from('4f676753000200000000000000000000', 'hex');

describeTranscriberContract('in-memory fake', async () => {
  const transcriber = new FakeTranscriber();
  return {
    transcriber,
    clipSaying: (words) => ({ data: new TextEncoder().encode(words), mediaType: 'audio/ogg' }),
    received: () => transcriber.clips.map((clip) => clip.data),
    failNext: (reason) => transcriber.failNext(reason, reason === 'refused' ? 401 : 503),
    close: async () => undefined,
  };
});

describeTranscriberContract("AI SDK transcription against a loopback server speaking OpenAI's /v1/audio/transcriptions", async () => {
  const server = await startFakeOpenAi();
  const transcriber = new VercelAiTranscriber({
    provider: 'openai',
    model: 'whisper-1',
    apiKey: 'sk-test',
    baseUrl: server.baseUrl,
    timeoutMs: 10_000,
    maxRetries: 1,
  });
  let clips = 0;
  return {
    transcriber,
    clipSaying: (words) => {
      const data = Buffer.concat([OGG_HEADER, Buffer.from(`clip-${++clips}`)]);
      // The fake answers the transcript set for the next request: one clip per call in these tests.
      server.transcript = words;
      return { data: new Uint8Array(data), mediaType: 'audio/ogg' };
    },
    received: () => server.transcriptions.map((request) => new Uint8Array(request.data)),
    failNext: (reason) => {
      // A persisting failure: every attempt (the first and the retry) fails.
      const failure =
        reason === 'refused'
          ? { status: 401, body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } } }
          : { status: 503 };
      server.transcriptionFailures.push(failure, failure);
    },
    close: () => server.close(),
  };
});

describe('VercelAiTranscriber on the wire', () => {
  it("sends OpenAI's multipart form: the file with its Ogg type, the model, the key as a bearer token", async () => {
    const server = await startFakeOpenAi();
    try {
      server.transcript = 'hello there';
      const transcriber = new VercelAiTranscriber({
        provider: 'custom',
        model: 'whisper-large-v3',
        apiKey: undefined,
        baseUrl: server.baseUrl,
        timeoutMs: 10_000,
        maxRetries: 0,
      });
      expect(await transcriber.transcribe({ data: new Uint8Array(Buffer.concat([OGG_HEADER, Buffer.from('x')])), mediaType: 'audio/ogg' })).to.equal(
        'hello there',
      );
      const [request] = server.transcriptions;
      expect(request).to.deep.include({ model: 'whisper-large-v3', fileType: 'audio/ogg', fileName: 'audio.ogg' });
      expect(request.authorization).to.match(/^Bearer /);
    } finally {
      await server.close();
    }
  });

  it('names the missing base URL of the custom provider before calling anything', async () => {
    const transcriber = new VercelAiTranscriber({
      provider: 'custom',
      model: 'whisper-1',
      apiKey: undefined,
      baseUrl: undefined,
      timeoutMs: 1000,
      maxRetries: 0,
    });
    const error = await transcriber.transcribe({ data: new Uint8Array([1]), mediaType: 'audio/ogg' }).then(
      () => undefined,
      (e: AiCallFailed) => e,
    );
    expect(error).to.include({ reason: 'not_configured' });
    expect(error?.message).to.include('LLM_BASE_URL');
  });
});
