import { z } from 'zod';
import { AI_PROVIDERS, TRANSCRIPTION_PROVIDER_NAMES } from '../../adapters/ai/ai-providers.js';
import { optionalOneOf, optionalText, size } from './fields.js';

/**
 * Voice messages: the provider that transcribes them (one of the AI provider registry's that
 * transcribe; its key and base URL are the AI layer's), its model, and the largest recording
 * downloaded. Unset provider: voice messages are answered that they cannot be read.
 */
export const transcriptionSchema = z
  .looseObject({
    TRANSCRIBE_PROVIDER: optionalOneOf(TRANSCRIPTION_PROVIDER_NAMES),
    TRANSCRIBE_MODEL: optionalText(),
    TRANSCRIBE_MAX_SIZE: size('20mb'),
  })
  .superRefine((env, ctx) => {
    // A provider without a URL of its own takes the AI layer's (its variable, or LLM_BASE_URL), whose values llmSchema checks.
    const provider = AI_PROVIDERS.find((candidate) => candidate.name === env.TRANSCRIBE_PROVIDER);
    const given = (name: string) => typeof env[name] === 'string' && (env[name] as string).trim() !== '';
    if (provider?.needsBaseUrl && !given(provider.baseUrlVariable) && !given('LLM_BASE_URL')) {
      ctx.addIssue({
        code: 'custom',
        path: ['TRANSCRIBE_PROVIDER'],
        message: `${provider.name} needs LLM_BASE_URL or ${provider.baseUrlVariable} (the server's /v1 URL)`,
      });
    }
  })
  .transform((env) => ({
    transcription:
      env.TRANSCRIBE_PROVIDER === undefined
        ? undefined
        : {
            provider: env.TRANSCRIBE_PROVIDER,
            model: env.TRANSCRIBE_MODEL ?? (AI_PROVIDERS.find((provider) => provider.name === env.TRANSCRIBE_PROVIDER)?.transcriptionModel as string),
            maxBytes: env.TRANSCRIBE_MAX_SIZE,
          },
  }));
