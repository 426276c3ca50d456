import type { Trigger } from '../../domain/triggers/trigger.js';

/**
 * An enabled agent action where this gateway runs no job: each of its runs would only be
 * recorded not_runnable ("Jobs are not configured"). Refused, as an agent action whose provider
 * has no secret is (check-trigger-secrets.ts): one problem per action, naming the file, the
 * entry, the action and the settings that enable jobs (`unavailable`, undefined when jobs run).
 */
export const checkAgentActionsRunnable = (
  entries: ReadonlyArray<Pick<Trigger, 'name' | 'enabled' | 'actions'>>,
  unavailable: string | undefined,
  file: string,
  kind: 'trigger' | 'schedule' = 'trigger',
): string[] =>
  unavailable === undefined
    ? []
    : entries.flatMap((entry, index) =>
        entry.actions.flatMap((action, i) =>
          entry.enabled && action.type === 'agent'
            ? [`${file}: ${kind} #${index} "${entry.name}": actions[${i}]: an agent action needs jobs, which this gateway does not run: ${unavailable}`]
            : [],
        ),
      );
