export const AI_PROVIDERS = [
    {
        name: 'anthropic',
        keyVariable: 'ANTHROPIC_API_KEY',
        baseUrlVariable: 'ANTHROPIC_BASE_URL',
        defaultModel: 'claude-sonnet-4-5',
        needsBaseUrl: false,
        keyOptional: false,
    },
    {
        name: 'openai',
        keyVariable: 'OPENAI_API_KEY',
        baseUrlVariable: 'OPENAI_BASE_URL',
        defaultModel: 'gpt-4.1',
        needsBaseUrl: false,
        keyOptional: false,
        transcriptionModel: 'whisper-1',
    },
    {
        name: 'google',
        keyVariable: 'GOOGLE_API_KEY',
        baseUrlVariable: 'GOOGLE_BASE_URL',
        defaultModel: 'gemini-2.5-flash',
        needsBaseUrl: false,
        keyOptional: false,
    },
    {
        name: 'custom',
        keyVariable: 'CUSTOM_API_KEY',
        baseUrlVariable: 'CUSTOM_BASE_URL',
        defaultModel: undefined,
        needsBaseUrl: true,
        keyOptional: true,
        // OpenAI-compatible speech servers (faster-whisper-server, LocalAI, whisper.cpp's server, vLLM) take this name or their own.
        transcriptionModel: 'whisper-1',
    },
];
export const AI_PROVIDER_NAMES = AI_PROVIDERS.map((provider) => provider.name);
/** The providers that transcribe speech (TRANSCRIBE_PROVIDER). */
export const TRANSCRIPTION_PROVIDER_NAMES = AI_PROVIDERS.filter((provider) => provider.transcriptionModel !== undefined).map((provider) => provider.name);
//# sourceMappingURL=ai-providers.js.map