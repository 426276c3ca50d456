import { AiCallFailed, aiFailureReason } from '../../../domain/ai/ai-call-failed.js';
/** What to check, per reason; never the provider's own text, which may quote a request or a key. */
const ADVICE = {
    unreachable: () => "The AI provider could not be reached. Check its base URL (LLM_BASE_URL, or the provider's own such as OPENAI_BASE_URL) and that this server can connect to it.",
    timeout: () => 'The AI provider did not answer in time (LLM_TIMEOUT_SECONDS). Try again; if it keeps happening, check the provider or raise the timeout.',
    refused: (status) => `The AI provider refused the request${status === undefined ? '' : ` (HTTP ${status})`}. Check the API key (such as OPENAI_API_KEY or CUSTOM_API_KEY) and the model name (LLM_MODEL).`,
    unavailable: (status) => `The AI provider is overloaded or failing${status === undefined ? '' : ` (HTTP ${status})`} and did not recover after the retries (LLM_MAX_RETRIES). Try again later.`,
    other: () => 'The message could not be answered.',
};
/**
 * The web chat's message for a failed answer: specific and safe to show — what failed, what to
 * check, and the request id under which the cause is logged.
 */
export const chatFailureMessage = (error, requestId) => {
    const reason = aiFailureReason(error);
    const where = ` The cause is in the service log under request id ${requestId}.`;
    if (reason === 'not_configured') {
        // Our own text naming the missing setting (AiCallFailed or a not_configured DomainError).
        const missing = error instanceof Error ? error.message : 'The AI provider is not configured';
        return `The chat has no AI provider to ask: ${missing}. Set LLM_PROVIDER, LLM_MODEL and the provider's API key (or LLM_BASE_URL for custom) and restart the service.${where}`;
    }
    return ADVICE[reason](error instanceof AiCallFailed ? error.httpStatus : undefined) + where;
};
//# sourceMappingURL=chat-failures.js.map