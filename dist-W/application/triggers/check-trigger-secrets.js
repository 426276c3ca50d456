/**
 * SPEC 2.3: an enabled agent action's provider override needs that provider's secret.
 * One problem per action, naming the file, the trigger, the action and the missing variable.
 */
export const checkTriggerSecrets = (triggers, secrets, file, kind = 'trigger') => triggers.flatMap((trigger, index) => trigger.actions.flatMap((action, i) => trigger.enabled && action.type === 'agent' && action.llmProvider !== undefined && !secrets.hasUsableSecret(action.llmProvider)
    ? [
        `${file}: ${kind} #${index} "${trigger.name}": actions[${i}].llm_provider: ${action.llmProvider} needs the secret ${secrets.secretName(action.llmProvider)}, which is not set`,
    ]
    : []));
//# sourceMappingURL=check-trigger-secrets.js.map