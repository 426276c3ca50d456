import type { AppConfig } from './config.js';

/** The settings that decide whether this gateway runs jobs. */
export type JobSettings = Pick<AppConfig, 'codehost' | 'jobs' | 'llm'>;

/**
 * Why this gateway runs no job (an agent action's, the API's, the chat's), naming the settings
 * that enable jobs; undefined when it runs them: a coding agent command, a default AI provider,
 * or a code host.
 */
export const jobsUnavailableReason = (config: JobSettings): string | undefined =>
  config.codehost === undefined && config.jobs.agentCommand === undefined && config.llm.provider === undefined
    ? 'set JOB_AGENT_COMMAND or LLM_PROVIDER, or CODEHOST_TOKEN and CODEHOST_REPO (see docs/jobs.md)'
    : undefined;
