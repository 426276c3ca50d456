import { AiCallFailed } from '../../domain/ai/ai-call-failed.js';
import { classify } from './vercel-ai-client.js';
/**
 * Speech to text on the Vercel AI SDK's transcription (`transcribe`) with
 * OpenAI's `POST {baseUrl}/audio/transcriptions` (multipart: `file`, `model`), which OpenAI's
 * Whisper models and OpenAI-compatible speech servers speak. The SDK tells the format (Ogg,
 * MP3, WAV, …) from the bytes. Uses Node's global fetch; the SDK is loaded at the first call.
 */
export class VercelAiTranscriber {
    settings;
    constructor(settings) {
        this.settings = settings;
        // The SDK prints its warnings to stderr outside our structured logs.
        globalThis.AI_SDK_LOG_WARNINGS = false;
    }
    async transcribe(clip, signal) {
        const { provider, model, apiKey, baseUrl } = this.settings;
        if (provider === 'custom' && baseUrl === undefined)
            throw new AiCallFailed('not_configured', 'The custom provider needs LLM_BASE_URL or CUSTOM_BASE_URL');
        const [ai, openai] = await Promise.all([import('ai'), import('@ai-sdk/openai')]);
        // An OpenAI-compatible server of one's own may take no key: the SDK insists on one, so a placeholder is sent.
        const transcription = openai.createOpenAI({ apiKey: apiKey ?? (provider === 'custom' ? 'none' : undefined), baseURL: baseUrl }).transcription(model);
        const timeout = AbortSignal.timeout(this.settings.timeoutMs);
        try {
            const result = await ai.transcribe({
                model: transcription,
                audio: clip.data,
                maxRetries: this.settings.maxRetries,
                abortSignal: AbortSignal.any([timeout, ...(signal ? [signal] : [])]),
            });
            return result.text.trim();
        }
        catch (error) {
            if (ai.NoTranscriptGeneratedError.isInstance(error))
                return '';
            const { reason, httpStatus } = classify(error, timeout.aborted, ai);
            if (reason === 'not_configured')
                throw new AiCallFailed(reason, `No API key is configured for ${provider} (transcription)`, { cause: error });
            const detail = reason === 'timeout' ? `no answer within ${this.settings.timeoutMs} ms` : error.message;
            throw new AiCallFailed(reason, `The ${provider} transcription failed: ${detail}`, { cause: error, httpStatus });
        }
    }
}
//# sourceMappingURL=vercel-ai-transcriber.js.map