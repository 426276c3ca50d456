import { z } from 'zod';
import { AI_PROVIDERS, TRANSCRIPTION_PROVIDER_NAMES } from '../../adapters/ai/ai-providers.js';
import { optionalOneOf, optionalText, size } from './fields.js';
/**
 * Voice messages: the provider that transcribes them (one of the AI provider registry's that
 * transcribe; its key and base URL are the AI layer's), its model, and the largest recording
 * downloaded. Unset provider: voice messages are answered that they cannot be read.
 */
export const transcriptionSchema = z
    .object({
    TRANSCRIBE_PROVIDER: optionalOneOf(TRANSCRIPTION_PROVIDER_NAMES),
    TRANSCRIBE_MODEL: optionalText(),
    TRANSCRIBE_MAX_SIZE: size('20mb'),
})
    .transform((env) => ({
    transcription: env.TRANSCRIBE_PROVIDER === undefined
        ? undefined
        : {
            provider: env.TRANSCRIBE_PROVIDER,
            model: env.TRANSCRIBE_MODEL ?? AI_PROVIDERS.find((provider) => provider.name === env.TRANSCRIBE_PROVIDER)?.transcriptionModel,
            maxBytes: env.TRANSCRIBE_MAX_SIZE,
        },
}));
//# sourceMappingURL=transcription.js.map