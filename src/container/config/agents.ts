import { join, resolve } from 'node:path';
import { z } from 'zod';
import { shownInput } from '../../domain/errors/shown-input.js';
import { AI_PROVIDER_NAMES, AI_PROVIDERS } from '../../adapters/ai/ai-providers.js';
import { checkGlob } from '../../domain/jobs/allowed-paths.js';
import { flag, integer, oneOf, optionalOneOf, optionalPath, optionalText, optionalUrl, text, url } from './fields.js';

/** The AI layer: the default provider and model, base URLs, timeouts. The providers are those of the AI provider registry. */
export const llmSchema = z
  .object({
    LLM_PROVIDER: optionalOneOf(AI_PROVIDER_NAMES),
    LLM_MODEL: optionalText(),
    LLM_BASE_URL: optionalUrl(),
    LLM_TIMEOUT_SECONDS: integer(120, 1, 3600),
    LLM_MAX_RETRIES: integer(2, 0, 10),
  })
  // <PROVIDER>_BASE_URL of every provider.
  .extend(
    Object.fromEntries(AI_PROVIDERS.map((provider) => [provider.baseUrlVariable, optionalUrl()])) as Record<
      `${string}_BASE_URL`,
      ReturnType<typeof optionalUrl>
    >,
  )
  .superRefine((env, ctx) => {
    for (const provider of AI_PROVIDERS) {
      if (provider.needsBaseUrl && env.LLM_PROVIDER === provider.name && env[provider.baseUrlVariable] === undefined && env.LLM_BASE_URL === undefined) {
        ctx.addIssue({ code: 'custom', path: ['LLM_BASE_URL'], message: `required when LLM_PROVIDER is ${provider.name} (the server's /v1 URL)` });
      }
      if (provider.defaultModel === undefined && env.LLM_PROVIDER === provider.name && env.LLM_MODEL === undefined) {
        ctx.addIssue({ code: 'custom', path: ['LLM_MODEL'], message: `required when LLM_PROVIDER is ${provider.name} (it has no default model)` });
      }
    }
  })
  .transform((env) => {
    // LLM_BASE_URL serves the providers that need a URL of one's own and the default provider; <PROVIDER>_BASE_URL wins.
    const baseUrls: Readonly<Record<string, string | undefined>> = Object.fromEntries(
      AI_PROVIDERS.map((provider) => [
        provider.name,
        env[provider.baseUrlVariable] ?? (provider.needsBaseUrl || provider.name === env.LLM_PROVIDER ? env.LLM_BASE_URL : undefined),
      ]),
    );
    return {
      llm: { provider: env.LLM_PROVIDER, model: env.LLM_MODEL, baseUrls, timeoutMs: env.LLM_TIMEOUT_SECONDS * 1000, maxRetries: env.LLM_MAX_RETRIES },
    };
  });

/** Jobs on GitHub Actions: both CODEHOST_TOKEN and CODEHOST_REPO, or neither. */
export const codehostSchema = z
  .object({
    CODEHOST_TOKEN: optionalText(),
    CODEHOST_REPO: optionalText().superRefine((value, ctx) => {
      if (value !== undefined && !/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(value))
        ctx.addIssue({ code: 'custom', message: `"${shownInput(value)}" is not owner/name` });
    }),
    CODEHOST_API_URL: url('https://api.github.com'),
    // The agent's workflow (docs/templates/agent-job.yml): only its runs tell a job's outcome.
    CODEHOST_WORKFLOW: text('agent-job.yml').superRefine((value, ctx) => {
      if (!/^[A-Za-z0-9._-]+\.ya?ml$/.test(value))
        ctx.addIssue({ code: 'custom', message: `"${shownInput(value)}" is not a workflow file name such as agent-job.yml` });
    }),
    CODEHOST_POLL_SECONDS: integer(60, 5, 86_400),
    // A job handed over with no run of the workflow for this long is failed, naming what to check.
    CODEHOST_RUN_START_SECONDS: integer(1800, 60, 604_800),
    AUTO_MERGE: flag(false),
    ALLOWED_PATHS: text('logs/**').transform((value, ctx) => {
      const globs = value
        .split(',')
        .map((glob) => glob.trim())
        .filter((glob) => glob !== '');
      if (globs.length === 0) ctx.addIssue({ code: 'custom', message: `"${shownInput(value)}" holds no glob` });
      for (const glob of globs) {
        const problem = checkGlob(glob);
        if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
      }
      return globs;
    }),
  })
  .superRefine((env, ctx) => {
    const [missing, given] = env.CODEHOST_TOKEN === undefined ? ['CODEHOST_TOKEN', 'CODEHOST_REPO'] : ['CODEHOST_REPO', 'CODEHOST_TOKEN'];
    if ((env.CODEHOST_TOKEN === undefined) !== (env.CODEHOST_REPO === undefined)) {
      ctx.addIssue({ code: 'custom', path: [missing], message: `required when ${given} is set (jobs on GitHub Actions need both)` });
    }
    if (env.AUTO_MERGE && env.CODEHOST_TOKEN === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['AUTO_MERGE'],
        message: 'needs CODEHOST_TOKEN and CODEHOST_REPO: it merges the pull requests of jobs on GitHub Actions',
      });
    }
  })
  .transform((env) => ({
    /** Set when jobs run on GitHub Actions. */
    codehost:
      env.CODEHOST_TOKEN !== undefined && env.CODEHOST_REPO !== undefined
        ? {
            token: env.CODEHOST_TOKEN,
            repo: env.CODEHOST_REPO,
            apiUrl: env.CODEHOST_API_URL,
            /** The agent's workflow file in .github/workflows: the runs that tell a job's outcome. */
            workflow: env.CODEHOST_WORKFLOW,
            pollSeconds: env.CODEHOST_POLL_SECONDS,
            /** How long a job handed over may go without a run of the workflow before the poll fails it. */
            runStartSeconds: env.CODEHOST_RUN_START_SECONDS,
            /** AUTO_MERGE: merge a succeeded job's pull request when its files are all under ALLOWED_PATHS and its checks passed. */
            autoMerge: env.AUTO_MERGE ? { allowedPaths: env.ALLOWED_PATHS } : undefined,
          }
        : undefined,
  }));

/** The longest JOB_TIMEOUT_SECONDS: 23 h 50 min, so that the task running a job (its time limit and 10 min more) stays within the task queue's 24 hours. */
export const LONGEST_JOB_SECONDS = 86_400 - 600;

/** JOB_SANDBOX: how the local agents' commands are confined (docs/deployment.md, "Sandboxing local jobs"). */
export const JOB_SANDBOXES = ['none', 'bwrap'] as const;

/** JOB_SANDBOX_NETWORK: `none`, a network namespace of the sandbox's own (a loopback only); `host`, the host's network, localhost included. */
export const JOB_SANDBOX_NETWORKS = ['none', 'host'] as const;

/** The most JOB_QUEUE_LIMIT may be: each creation counts up to this many waiting jobs (an index range). */
export const LARGEST_JOB_QUEUE_LIMIT = 100_000;

/** Agent jobs run on this host (when no code host runs them), and how many may wait to run on any runner. */
export const jobsSchema = (cwd: string, dataDir: string) =>
  z
    .object({
      JOBS_REPO: optionalPath(),
      JOB_AGENT_COMMAND: optionalText(),
      // The task queue fails a task that runs past 24 hours (pg-boss's most): a job's time limit stays under it (see bindTaskQueue).
      JOB_TIMEOUT_SECONDS: integer(3600, 1, LONGEST_JOB_SECONDS),
      JOB_CONCURRENCY: integer(1, 1, 64),
      JOB_AGENT_MAX_STEPS: integer(30, 1, 500),
      JOB_SANDBOX: oneOf(JOB_SANDBOXES, 'none'),
      JOB_SANDBOX_NETWORK: optionalOneOf(JOB_SANDBOX_NETWORKS),
      // 0: no limit.
      JOB_QUEUE_LIMIT: integer(100, 0, LARGEST_JOB_QUEUE_LIMIT),
    })
    .superRefine((env, ctx) => {
      // Without the sandbox, commands have the host's network whatever this says: refused, not taken as done.
      if (env.JOB_SANDBOX_NETWORK !== undefined && env.JOB_SANDBOX !== 'bwrap') {
        ctx.addIssue({
          code: 'custom',
          path: ['JOB_SANDBOX_NETWORK'],
          message: `applies to the bubblewrap sandbox only: set JOB_SANDBOX=bwrap, or unset JOB_SANDBOX_NETWORK (without the sandbox, commands have the host's network)`,
        });
      }
    })
    .transform((env) => ({
      jobs: {
        /** Repository local jobs work on; DATA_DIR/jobs-repo (created) when JOBS_REPO is unset. */
        repoDir: env.JOBS_REPO !== undefined ? resolve(cwd, env.JOBS_REPO) : join(dataDir, 'jobs-repo'),
        agentCommand: env.JOB_AGENT_COMMAND,
        timeoutMs: env.JOB_TIMEOUT_SECONDS * 1000,
        concurrency: env.JOB_CONCURRENCY,
        /** Model calls of the built-in agent per job. */
        maxSteps: env.JOB_AGENT_MAX_STEPS,
        /** Where the agents' commands run: `bwrap` in a bubblewrap sandbox (checked at start-up), `none` as the service's user. */
        sandbox: env.JOB_SANDBOX,
        /**
         * The network the agents' commands have: with JOB_SANDBOX=bwrap, `none` by default for the
         * built-in agent (the gateway calls its model itself, outside the sandbox) and `host` for
         * JOB_AGENT_COMMAND (which calls its model itself); without the sandbox, always `host`.
         */
        sandboxNetwork: env.JOB_SANDBOX !== 'bwrap' ? ('host' as const) : (env.JOB_SANDBOX_NETWORK ?? (env.JOB_AGENT_COMMAND !== undefined ? 'host' : 'none')),
        /** The most jobs that may wait to run (`queued`), from every source; undefined: no limit (JOB_QUEUE_LIMIT=0). */
        queueLimit: env.JOB_QUEUE_LIMIT === 0 ? undefined : env.JOB_QUEUE_LIMIT,
      },
    }));
