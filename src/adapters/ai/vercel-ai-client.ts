import { setTimeout as wait } from 'node:timers/promises';
import type * as ai from 'ai';
import type { LanguageModel, ModelMessage, ToolSet } from 'ai';
import { AiCallFailed, type AiFailureReason } from '../../domain/ai/ai-call-failed.js';
import { isDomainError } from '../../domain/errors/domain-error.js';
import type { AiClient, AiMessage, AiRequest, AiResponse } from '../../ports/ai-client.js';
import { AI_PROVIDERS } from './ai-providers.js';

export interface ProviderSettings {
  readonly apiKey: string | undefined;
  /** Base URL override (required for `custom`: the OpenAI-compatible server's `/v1`). */
  readonly baseUrl: string | undefined;
}

export interface AiSettings {
  readonly provider: string | undefined;
  readonly model: string | undefined;
  /** Keys and base URLs by provider name (ai-providers.ts); a provider not listed has neither. */
  readonly providers: Readonly<Record<string, ProviderSettings | undefined>>;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  /**
   * The wait before the first retry of a model call, doubled before each further one (default
   * 2000 ms, the SDK's own); a retry-after header of the provider under a minute wins. Tests
   * make it short.
   */
  readonly retryDelayMs?: number;
}

/** The SDK's default first retry delay. */
const RETRY_DELAY_MS = 2000;
/** The longest retry-after (header) honoured, as the SDK does. */
const MAX_RETRY_AFTER_MS = 60_000;

/** A retry-after-ms or retry-after header (seconds or an HTTP date) in ms, if the error carries one within a minute. */
const retryAfterMs = (headers: Record<string, string> | undefined): number | undefined => {
  if (headers === undefined) return undefined;
  let ms: number | undefined;
  const millis = headers['retry-after-ms'];
  if (millis) ms = Number.parseFloat(millis);
  const after = headers['retry-after'];
  if ((ms === undefined || Number.isNaN(ms)) && after) {
    const seconds = Number.parseFloat(after);
    ms = Number.isNaN(seconds) ? Date.parse(after) - Date.now() : seconds * 1000;
  }
  return ms !== undefined && !Number.isNaN(ms) && ms >= 0 && ms < MAX_RETRY_AFTER_MS ? ms : undefined;
};

const MAX_OUTPUT_TOKENS = 8192;

/** Makes a provider's model; each provider's module is loaded at the first call to it. */
type ModelMaker = (settings: ProviderSettings, model: string) => Exclude<LanguageModel, string>;

/** One entry per provider of ai-providers.ts. */
const PROVIDER_MODULES: Readonly<Record<string, () => Promise<ModelMaker>>> = {
  anthropic: async () => {
    const { createAnthropic } = await import('@ai-sdk/anthropic');
    return ({ apiKey, baseUrl }, model) => createAnthropic({ apiKey, baseURL: baseUrl })(model);
  },
  openai: async () => {
    const { createOpenAI } = await import('@ai-sdk/openai');
    return ({ apiKey, baseUrl }, model) => createOpenAI({ apiKey, baseURL: baseUrl }).chat(model);
  },
  google: async () => {
    const { createGoogle } = await import('@ai-sdk/google');
    return ({ apiKey, baseUrl }, model) => createGoogle({ apiKey, baseURL: baseUrl })(model);
  },
  custom: async () => {
    const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
    return ({ apiKey, baseUrl }, model) => {
      if (baseUrl === undefined) throw new AiCallFailed('not_configured', 'The custom provider needs LLM_BASE_URL');
      return createOpenAICompatible({ name: 'custom', baseURL: baseUrl, apiKey })(model);
    };
  },
};

let aiModule: Promise<typeof ai> | undefined;
const makers = new Map<string, Promise<ModelMaker>>();
/**
 * The SDK is loaded at the first model call (or by `prepare`), not at start-up: with the schema
 * library it brings, it is about a fifth of the modules the service loads (bench/README.md,
 * "Measurements behind the code"); of the providers' modules, only the one called.
 */
const loadAi = (): Promise<typeof ai> => (aiModule ??= import('ai'));
const loadMaker = (provider: string): Promise<ModelMaker> => {
  const load = PROVIDER_MODULES[provider];
  if (load === undefined) return Promise.reject(new AiCallFailed('not_configured', `Unknown LLM provider: ${provider}`));
  let maker = makers.get(provider);
  if (maker === undefined) {
    maker = load();
    makers.set(provider, maker);
  }
  return maker;
};

const defaultModel = (provider: string): string | undefined => AI_PROVIDERS.find((known) => known.name === provider)?.defaultModel;

/**
 * The AI layer on the Vercel AI SDK: Anthropic, OpenAI (chat completions), Google Gemini,
 * and any OpenAI-compatible server as `custom`. Uses Node's global fetch.
 */
export class VercelAiClient implements AiClient {
  readonly #models = new Map<string, LanguageModel>();

  constructor(private readonly settings: AiSettings) {
    // The SDK prints its warnings to stderr outside our structured logs.
    (globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
  }

  /**
   * Where a request goes: its own provider, else the configured one; its own model, else the
   * configured model (only with the configured provider), else the provider's default model.
   * `prepare` warms what a request naming neither would use.
   */
  #target(request: Pick<AiRequest, 'provider' | 'model'>): { provider: string | undefined; model: string | undefined } {
    const provider = request.provider ?? this.settings.provider;
    if (provider === undefined) return { provider, model: undefined };
    return { provider, model: request.model ?? (request.provider === undefined ? this.settings.model : undefined) ?? defaultModel(provider) };
  }

  /**
   * Loads the SDK and the configured provider's module and makes the configured model (its
   * response schemas), so that the first call does none of it. Resolves whatever happens: a
   * configuration problem is reported by the call that meets it.
   */
  async prepare(): Promise<void> {
    const { provider, model } = this.#target({});
    if (provider === undefined || model === undefined) return;
    try {
      // One after the other: each module is evaluated in one go, and requests get a turn between them.
      const loaded = await loadAi();
      this.#model(loaded, await loadMaker(provider), provider, model);
    } catch {
      // reported by the first call
    }
  }

  async generate(request: AiRequest): Promise<AiResponse> {
    const { provider, model } = this.#target(request);
    if (provider === undefined) throw new AiCallFailed('not_configured', 'No LLM provider is configured (LLM_PROVIDER)');
    if (model === undefined) throw new AiCallFailed('not_configured', `No model is configured for ${provider} (LLM_MODEL)`);
    const [loaded, make] = await Promise.all([loadAi(), loadMaker(provider)]);
    const { generateText, isStepCount, jsonSchema, tool } = loaded;
    const tools: ToolSet = {};
    for (const t of request.tools ?? []) {
      tools[t.name] = tool({
        description: t.description,
        inputSchema: jsonSchema<Record<string, unknown>>(t.parameters as Parameters<typeof jsonSchema>[0]),
        execute: (input: Record<string, unknown>) => t.execute(input),
      });
    }
    const timeout = AbortSignal.timeout(this.settings.timeoutMs);
    const signals = [timeout, ...(request.signal ? [request.signal] : [])];
    try {
      const result = await generateText({
        model: this.#model(loaded, make, provider, model),
        system: request.system,
        messages: request.messages.map(toModelMessage),
        tools: Object.keys(tools).length > 0 ? tools : undefined,
        stopWhen: isStepCount(request.maxSteps ?? 1),
        maxOutputTokens: MAX_OUTPUT_TOKENS,
        // Retried per model call by #retries, with a delay of our own.
        maxRetries: 0,
        abortSignal: AbortSignal.any(signals),
      });
      return {
        text: result.text,
        steps: result.steps.length,
        toolCalls: result.steps.flatMap((step) => step.toolCalls.map((call) => ({ name: call.toolName, input: call.input }))),
      };
    } catch (error) {
      if (isDomainError(error)) throw error;
      const { reason, httpStatus } = classify(error, timeout.aborted, loaded);
      if (reason === 'not_configured')
        throw new AiCallFailed(
          reason,
          `No API key is configured for ${provider} (${AI_PROVIDERS.find((known) => known.name === provider)?.keyVariable ?? `${provider.toUpperCase()}_API_KEY`})`,
          { cause: error },
        );
      const detail = reason === 'timeout' ? `no answer within ${this.settings.timeoutMs} ms` : (error as Error).message;
      throw new AiCallFailed(reason, `The ${provider} model call failed: ${detail}`, { cause: error, httpStatus });
    }
  }

  /**
   * Models are made once per provider and name: making one builds the provider's response
   * schemas (zod), which cost more CPU than the rest of a call.
   */
  #model(loaded: typeof ai, make: ModelMaker, provider: string, model: string): LanguageModel {
    const key = `${provider}\u0000${model}`;
    let made = this.#models.get(key);
    if (made === undefined) {
      const settings = this.settings.providers[provider] ?? { apiKey: undefined, baseUrl: undefined };
      made = loaded.wrapLanguageModel({ model: make(settings, model), middleware: this.#retries(loaded) });
      // Model names can come from API callers (create-job): keep the cache bounded.
      if (this.#models.size >= 32) this.#models.clear();
      this.#models.set(key, made);
    }
    return made;
  }

  /**
   * Retries of one model call (one step of a run: never the tools a step ran), as the SDK's own
   * retries would (429, 5xx, no connection: what the SDK marks retryable), with an exponential
   * delay from `retryDelayMs` that a provider's retry-after header overrides.
   */
  #retries(loaded: typeof ai): Parameters<typeof ai.wrapLanguageModel>[0]['middleware'] {
    const { maxRetries, retryDelayMs = RETRY_DELAY_MS } = this.settings;
    const { APICallError } = loaded;
    return {
      specificationVersion: 'v4',
      wrapGenerate: async ({ doGenerate, params }) => {
        let delayMs = retryDelayMs;
        for (let attempt = 0; ; attempt++) {
          try {
            return await doGenerate();
          } catch (error) {
            if (attempt >= maxRetries || !APICallError.isInstance(error) || !error.isRetryable || usedUp(error) || params.abortSignal?.aborted) throw error;
            await wait(retryAfterMs(error.responseHeaders) ?? delayMs, undefined, { signal: params.abortSignal });
            delayMs *= 2;
          }
        }
      },
    };
  }
}

/**
 * A 429 that no wait cures: the account's quota or spend limit is used up (OpenAI's
 * `insufficient_quota`, Anthropic's spend limit), as the answer's body says. Gemini says
 * "exceeded your current quota" for its per-minute limits too (with a delay to retry after):
 * its 429s are all retried. Not retried (PROTOCOLS), and classed `refused`: the operator has
 * to act. A passing rate limit (requests or tokens per minute) is retried as before.
 */
export const usedUp = (error: { readonly statusCode?: number; readonly responseBody?: string }): boolean =>
  error.statusCode === 429 && /insufficient_quota|spend(ing)? limit|credit balance/i.test(error.responseBody ?? '');

/** The SDK's error classes that classify() tells apart (the `ai` module). */
type SdkErrors = Pick<typeof ai, 'APICallError' | 'LoadAPIKeyError' | 'RetryError'>;

/**
 * What went wrong, from the SDK's error: the last attempt's error when retries ran out; no
 * HTTP status means no connection (the SDK's "Cannot connect to API"); a missing API key is
 * configuration. `timedOut` tells a timeout from a cancellation by the caller.
 */
export const classify = (
  error: unknown,
  timedOut: boolean,
  { APICallError, LoadAPIKeyError, RetryError }: SdkErrors,
): { reason: AiFailureReason; httpStatus?: number } => {
  const last = RetryError.isInstance(error) ? error.lastError : error;
  if (timedOut) return { reason: 'timeout' };
  if (LoadAPIKeyError.isInstance(last)) return { reason: 'not_configured' };
  if (!APICallError.isInstance(last)) return { reason: 'other' };
  const status = last.statusCode;
  if (status === undefined) return { reason: 'unreachable' };
  if (usedUp(last)) return { reason: 'refused', httpStatus: status };
  if (status === 408 || status === 429 || status >= 500) return { reason: 'unavailable', httpStatus: status };
  if (status >= 400) return { reason: 'refused', httpStatus: status };
  return { reason: 'other', httpStatus: status };
};

const toModelMessage = (message: AiMessage): ModelMessage =>
  message.role === 'assistant'
    ? { role: 'assistant', content: message.text }
    : {
        role: 'user',
        content: [
          { type: 'text', text: message.text },
          ...(message.images ?? []).map((image) => ({ type: 'file' as const, data: image.data, mediaType: image.mediaType })),
        ],
      };
