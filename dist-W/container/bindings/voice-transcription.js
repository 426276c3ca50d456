import { VercelAiTranscriber } from '../../adapters/ai/vercel-ai-transcriber.js';
/** Voice messages' transcription (TRANSCRIBE_*), with the key and base URL the AI layer has for its provider; undefined when not configured. */
export const voiceTranscription = (config, secrets) => {
    const settings = config.transcription;
    if (settings === undefined)
        return undefined;
    return {
        transcriber: new VercelAiTranscriber({
            provider: settings.provider,
            model: settings.model,
            apiKey: secrets.providerSecret(settings.provider),
            baseUrl: config.llm.baseUrls[settings.provider],
            timeoutMs: config.llm.timeoutMs,
            maxRetries: config.llm.maxRetries,
        }),
        maxBytes: settings.maxBytes,
    };
};
//# sourceMappingURL=voice-transcription.js.map