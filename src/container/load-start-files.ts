import { existsSync } from 'node:fs';
import { AI_PROVIDERS } from '../adapters/ai/ai-providers.js';
import { EnvironmentSecretStore } from '../adapters/secrets/environment-secret-store.js';
import { checkBwrap, checkBwrapNetwork, findBwrap } from '../adapters/shell/bwrap-sandboxed-shell.js';
import { shownPath } from '../adapters/triggerfile/shown-path.js';
import { checkAgentActionsRunnable } from '../application/triggers/check-agent-actions.js';
import { checkTriggerSecrets } from '../application/triggers/check-trigger-secrets.js';
import { runNameClashes } from '../domain/schedules/run-name-clash.js';
import type { Schedule } from '../domain/schedules/schedule.js';
import type { Trigger } from '../domain/triggers/trigger.js';
import type { Logger } from '../ports/logger.js';
import { ConfigError, type AppConfig } from './config.js';
import { jobsUnavailableReason } from './jobs-availability.js';
import { loadSchedules } from './load-schedules.js';
import { loadTriggers } from './load-triggers.js';
import { StartupError } from './startup-error.js';

/**
 * The files start-up reads before anything is opened: the trigger and schedule files (validated
 * as a whole, and together: no trigger named as a schedule's runs are, see runNameClashes), and
 * the chat's system prompt when CHAT_SYSTEM_PROMPT_FILE names one — a prompt file set on purpose and missing would otherwise leave the chat on the default prompt unsaid.
 * Each enabled agent action's provider override must have its secret in the environment (SPEC
 * 2.3), and jobs must run (jobsUnavailableReason): checked here too, so that such a file stops start-up before any request is answered (the
 * early intake, head-start.ts), not once the database is open.
 */
export const loadStartFiles = async (config: AppConfig, logger: Logger): Promise<{ triggers: readonly Trigger[]; schedules: readonly Schedule[] }> => {
  const triggers = await loadTriggers(config, logger);
  const schedules = await loadSchedules(config, logger);
  const clashes = runNameClashes(triggers, schedules, shownPath(config.triggersFile), shownPath(config.cronsFile));
  if (clashes.length > 0) throw new ConfigError(clashes, 'Invalid trigger and schedule files');
  if (config.chat.systemPromptFileGiven && !existsSync(config.chat.systemPromptFile)) {
    throw new ConfigError([`CHAT_SYSTEM_PROMPT_FILE: ${config.chat.systemPromptFile} does not exist`]);
  }
  // The service's secret store reads the same environment (basic-bindings.ts).
  const secrets = new EnvironmentSecretStore(process.env, AI_PROVIDERS);
  // The default provider without its key: the service started, and every chat message ("Sorry, I
  // encountered an error") and every job that names no provider (create-job: 400 "has no secret
  // configured") failed; refused here, naming the variable.
  const provider = config.llm.provider;
  if (provider !== undefined && !secrets.hasUsableSecret(provider))
    throw new ConfigError([
      `${secrets.secretName(provider)}: required when LLM_PROVIDER is ${provider} (the chat and every job that names no llm_provider use it); set it, or unset LLM_PROVIDER`,
    ]);
  // An agent action where no job runs would only be recorded not_runnable: refused as well.
  const jobs = jobsUnavailableReason(config);
  const secretProblems = [
    ...checkTriggerSecrets(triggers, secrets, shownPath(config.triggersFile)),
    ...checkAgentActionsRunnable(triggers, jobs, shownPath(config.triggersFile)),
  ];
  if (secretProblems.length > 0) throw new ConfigError(secretProblems, 'Invalid trigger file');
  const scheduleSecretProblems = [
    ...checkTriggerSecrets(schedules, secrets, shownPath(config.cronsFile), 'schedule'),
    ...checkAgentActionsRunnable(schedules, jobs, shownPath(config.cronsFile), 'schedule'),
  ];
  if (scheduleSecretProblems.length > 0) throw new ConfigError(scheduleSecretProblems, 'Invalid schedule file');
  return { triggers, schedules };
};

/**
 * JOB_SANDBOX=bwrap: a sandbox that cannot be built stops start-up (before the database is
 * opened, and before any request is answered), not the first job; so does one that cannot get a
 * network namespace of its own when JOB_SANDBOX_NETWORK is none (the built-in agent's default).
 */
export const checkJobSandbox = async (config: AppConfig): Promise<void> => {
  if (config.jobs.sandbox === 'bwrap' && config.codehost === undefined) {
    const bwrap = findBwrap(process.env.PATH);
    const problem = await checkBwrap(bwrap);
    if (problem !== undefined) throw new StartupError('JOB_SANDBOX', problem);
    const networkProblem = bwrap !== undefined && config.jobs.sandboxNetwork === 'none' ? await checkBwrapNetwork(bwrap) : undefined;
    if (networkProblem !== undefined) throw new StartupError('JOB_SANDBOX_NETWORK', networkProblem);
  }
};
