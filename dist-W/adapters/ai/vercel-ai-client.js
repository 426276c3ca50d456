import { setTimeout as wait } from 'node:timers/promises';
import { AiCallFailed } from '../../domain/ai/ai-call-failed.js';
import { isDomainError } from '../../domain/errors/domain-error.js';
import { AI_PROVIDERS } from './ai-providers.js';
/** The SDK's default first retry delay. */
const RETRY_DELAY_MS = 2000;
/** The longest retry-after (header) honoured, as the SDK does. */
const MAX_RETRY_AFTER_MS = 60_000;
/** A retry-after-ms or retry-after header (seconds or an HTTP date) in ms, if the error carries one within a minute. */
const retryAfterMs = (headers) => {
    if (headers === undefined)
        return undefined;
    let ms;
    const millis = headers['retry-after-ms'];
    if (millis)
        ms = Number.parseFloat(millis);
    const after = headers['retry-after'];
    if ((ms === undefined || Number.isNaN(ms)) && after) {
        const seconds = Number.parseFloat(after);
        ms = Number.isNaN(seconds) ? Date.parse(after) - Date.now() : seconds * 1000;
    }
    return ms !== undefined && !Number.isNaN(ms) && ms >= 0 && ms < MAX_RETRY_AFTER_MS ? ms : undefined;
};
const MAX_OUTPUT_TOKENS = 8192;
let sdk;
/**
 * The SDK is loaded at the first model call, not at start-up: with the schema library it
 * brings, it is about a fifth of the modules the service loads (bench/README.md, "Measurements
 * behind the code").
 */
const loadSdk = () => (sdk ??= Promise.all([
    import('ai'),
    import('@ai-sdk/anthropic'),
    import('@ai-sdk/google'),
    import('@ai-sdk/openai'),
    import('@ai-sdk/openai-compatible'),
]).then(([ai, anthropic, google, openai, compatible]) => ({ ai, anthropic, google, openai, compatible })));
const defaultModel = (provider) => AI_PROVIDERS.find((known) => known.name === provider)?.defaultModel;
/**
 * The AI layer on the Vercel AI SDK: Anthropic, OpenAI (chat completions), Google Gemini,
 * and any OpenAI-compatible server as `custom`. Uses Node's global fetch.
 */
export class VercelAiClient {
    settings;
    #models = new Map();
    constructor(settings) {
        this.settings = settings;
        // The SDK prints its warnings to stderr outside our structured logs.
        globalThis.AI_SDK_LOG_WARNINGS = false;
    }
    async generate(request) {
        const provider = request.provider ?? this.settings.provider;
        if (provider === undefined)
            throw new AiCallFailed('not_configured', 'No LLM provider is configured (LLM_PROVIDER)');
        const model = request.model ?? (request.provider === undefined ? this.settings.model : undefined) ?? defaultModel(provider);
        if (model === undefined)
            throw new AiCallFailed('not_configured', `No model is configured for ${provider} (LLM_MODEL)`);
        const loaded = await loadSdk();
        const { generateText, isStepCount, jsonSchema, tool } = loaded.ai;
        const tools = {};
        for (const t of request.tools ?? []) {
            tools[t.name] = tool({
                description: t.description,
                inputSchema: jsonSchema(t.parameters),
                execute: (input) => t.execute(input),
            });
        }
        const timeout = AbortSignal.timeout(this.settings.timeoutMs);
        const signals = [timeout, ...(request.signal ? [request.signal] : [])];
        try {
            const result = await generateText({
                model: this.#model(loaded, provider, model),
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
        }
        catch (error) {
            if (isDomainError(error))
                throw error;
            const { reason, httpStatus } = classify(error, timeout.aborted, loaded.ai);
            if (reason === 'not_configured')
                throw new AiCallFailed(reason, `No API key is configured for ${provider} (${AI_PROVIDERS.find((known) => known.name === provider)?.keyVariable ?? `${provider.toUpperCase()}_API_KEY`})`, { cause: error });
            const detail = reason === 'timeout' ? `no answer within ${this.settings.timeoutMs} ms` : error.message;
            throw new AiCallFailed(reason, `The ${provider} model call failed: ${detail}`, { cause: error, httpStatus });
        }
    }
    /**
     * Models are made once per provider and name: making one builds the provider's response
     * schemas (zod), which cost more CPU than the rest of a call.
     */
    #model(loaded, provider, model) {
        const key = `${provider}\u0000${model}`;
        let made = this.#models.get(key);
        if (made === undefined) {
            made = loaded.ai.wrapLanguageModel({ model: this.#makeModel(loaded, provider, model), middleware: this.#retries(loaded) });
            // Model names can come from API callers (create-job): keep the cache bounded.
            if (this.#models.size >= 32)
                this.#models.clear();
            this.#models.set(key, made);
        }
        return made;
    }
    /**
     * Retries of one model call (one step of a run: never the tools a step ran), as the SDK's own
     * retries would (429, 5xx, no connection: what the SDK marks retryable), with an exponential
     * delay from `retryDelayMs` that a provider's retry-after header overrides.
     */
    #retries(loaded) {
        const { maxRetries, retryDelayMs = RETRY_DELAY_MS } = this.settings;
        const { APICallError } = loaded.ai;
        return {
            specificationVersion: 'v4',
            wrapGenerate: async ({ doGenerate, params }) => {
                let delayMs = retryDelayMs;
                for (let attempt = 0;; attempt++) {
                    try {
                        return await doGenerate();
                    }
                    catch (error) {
                        if (attempt >= maxRetries || !APICallError.isInstance(error) || !error.isRetryable || params.abortSignal?.aborted)
                            throw error;
                        await wait(retryAfterMs(error.responseHeaders) ?? delayMs, undefined, { signal: params.abortSignal });
                        delayMs *= 2;
                    }
                }
            },
        };
    }
    /** One case per provider of ai-providers.ts. */
    #makeModel(loaded, provider, model) {
        const { apiKey, baseUrl } = this.settings.providers[provider] ?? { apiKey: undefined, baseUrl: undefined };
        switch (provider) {
            case 'anthropic':
                return loaded.anthropic.createAnthropic({ apiKey, baseURL: baseUrl })(model);
            case 'openai':
                return loaded.openai.createOpenAI({ apiKey, baseURL: baseUrl }).chat(model);
            case 'google':
                return loaded.google.createGoogle({ apiKey, baseURL: baseUrl })(model);
            case 'custom':
                if (baseUrl === undefined)
                    throw new AiCallFailed('not_configured', 'The custom provider needs LLM_BASE_URL');
                return loaded.compatible.createOpenAICompatible({ name: 'custom', baseURL: baseUrl, apiKey })(model);
            default:
                throw new AiCallFailed('not_configured', `Unknown LLM provider: ${provider}`);
        }
    }
}
/**
 * What went wrong, from the SDK's error: the last attempt's error when retries ran out; no
 * HTTP status means no connection (the SDK's "Cannot connect to API"); a missing API key is
 * configuration. `timedOut` tells a timeout from a cancellation by the caller.
 */
export const classify = (error, timedOut, { APICallError, LoadAPIKeyError, RetryError }) => {
    const last = RetryError.isInstance(error) ? error.lastError : error;
    if (timedOut)
        return { reason: 'timeout' };
    if (LoadAPIKeyError.isInstance(last))
        return { reason: 'not_configured' };
    if (!APICallError.isInstance(last))
        return { reason: 'other' };
    const status = last.statusCode;
    if (status === undefined)
        return { reason: 'unreachable' };
    if (status === 408 || status === 429 || status >= 500)
        return { reason: 'unavailable', httpStatus: status };
    if (status >= 400)
        return { reason: 'refused', httpStatus: status };
    return { reason: 'other', httpStatus: status };
};
const toModelMessage = (message) => message.role === 'assistant'
    ? { role: 'assistant', content: message.text }
    : {
        role: 'user',
        content: [
            { type: 'text', text: message.text },
            ...(message.images ?? []).map((image) => ({ type: 'file', data: image.data, mediaType: image.mediaType })),
        ],
    };
//# sourceMappingURL=vercel-ai-client.js.map