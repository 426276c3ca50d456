/**
 * The AI providers this gateway can call: the one list the configuration, the trigger file's
 * `llm_provider`, the create-job API and the chat agent's `create_job` tool are checked
 * against (the domain takes a provider for an opaque name). How each is reached is a case in
 * VercelAiClient. Loads nothing: it is read at start-up, before the AI SDK.
 */
export interface AiProvider {
  /** The name in LLM_PROVIDER, `llm_provider` and the `<NAME>_…` variables. */
  readonly name: string;
  /** The variable holding its API key. */
  readonly keyVariable: string;
  /** The variable overriding its base URL. */
  readonly baseUrlVariable: `${string}_BASE_URL`;
  /** Its model when none is configured; undefined when one must be named (LLM_MODEL). */
  readonly defaultModel: string | undefined;
  /** Whether it is reachable only at a URL of one's own (LLM_BASE_URL or its own variable). */
  readonly needsBaseUrl: boolean;
  /** Whether it may run without a key (an OpenAI-compatible server of one's own often needs none). */
  readonly keyOptional: boolean;
  /**
   * Its transcription model when none is configured (TRANSCRIBE_MODEL), for the providers that
   * transcribe speech with OpenAI's `POST /audio/transcriptions`; undefined: it does not transcribe.
   */
  readonly transcriptionModel?: string;
}

export const AI_PROVIDERS: readonly AiProvider[] = [
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

export const AI_PROVIDER_NAMES: readonly string[] = AI_PROVIDERS.map((provider) => provider.name);

/** The providers that transcribe speech (TRANSCRIBE_PROVIDER). */
export const TRANSCRIPTION_PROVIDER_NAMES: readonly string[] = AI_PROVIDERS.filter((provider) => provider.transcriptionModel !== undefined).map(
  (provider) => provider.name,
);
