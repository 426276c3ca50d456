import type { Job } from '../../domain/jobs/job.js';
import { redactSecrets } from '../../domain/jobs/redact-secrets.js';
import type { SecretStore } from '../../ports/secret-store.js';
import type { ShellExecutor } from '../../ports/shell-executor.js';
import { agentEnvironment } from './agent-variables.js';
import type { AgentOutcome, WorktreeAgent } from './worktree-agent.js';

/**
 * The longest prompt, in bytes of UTF-8, JOB_AGENT_COMMAND can be given: it gets it in the
 * JOB_PROMPT variable, and Linux refuses to start a program with one environment string over
 * 128 KiB (MAX_ARG_STRLEN, `JOB_PROMPT=<prompt>` and its NUL). CreateJob refuses a longer one.
 */
export const COMMAND_AGENT_MAX_PROMPT_BYTES = 128 * 1024 - 'JOB_PROMPT='.length - 1;

/**
 * JOB_AGENT_COMMAND run by the shell in the worktree under a minimal environment: the job's
 * variables, its provider's secret and the `AGENT_*` variables, none of the service's own
 * secrets. Exit 0 is success. Its output is redacted of the secrets before anyone keeps it:
 * the log is committed to the job's branch. (What the command shows its own model is up to it.)
 */
export class CommandAgent implements WorktreeAgent {
  constructor(
    private readonly command: string,
    private readonly timeoutMs: number,
    private readonly shell: ShellExecutor,
    private readonly secrets: SecretStore,
  ) {}

  async run(job: Job, dir: string, signal: AbortSignal): Promise<AgentOutcome> {
    // The log keeps how the agent ended: the end of a long output.
    const result = await this.shell.run(this.command, { cwd: dir, timeoutMs: this.timeoutMs, env: this.#environment(job), signal, keep: 'tail' });
    const ok = result.exitCode === 0;
    return {
      ok,
      aborted: result.aborted,
      log: this.redact(result.output),
      error: ok ? null : result.timedOut ? `The agent did not finish within ${this.timeoutMs} ms` : `The agent exited with code ${result.exitCode}`,
    };
  }

  redact(text: string): string {
    return redactSecrets(text, this.secrets.redactedSecrets());
  }

  #environment(job: Job): Record<string, string> {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      LANG: process.env.LANG ?? 'C.UTF-8',
      JOB_ID: job.id,
      JOB_PROMPT: job.job,
      JOB_BRANCH: job.branch,
      LLM_PROVIDER: job.llmProvider ?? '',
      LLM_MODEL: job.llmModel ?? '',
      ...agentEnvironment(this.secrets),
    };
    if (job.llmProvider) {
      const secret = this.secrets.providerSecret(job.llmProvider);
      if (secret !== undefined) env[this.secrets.secretName(job.llmProvider)] = secret;
    }
    return env;
  }
}
