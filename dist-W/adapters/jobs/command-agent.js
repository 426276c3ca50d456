import { redactSecrets } from '../../domain/jobs/redact-secrets.js';
import { agentEnvironment } from './agent-variables.js';
/**
 * JOB_AGENT_COMMAND run by the shell in the worktree under a minimal environment: the job's
 * variables, its provider's secret and the `AGENT_*` variables, none of the service's own
 * secrets. Exit 0 is success. Its output is redacted of the secrets before anyone keeps it:
 * the log is committed to the job's branch. (What the command shows its own model is up to it.)
 */
export class CommandAgent {
    command;
    timeoutMs;
    shell;
    secrets;
    constructor(command, timeoutMs, shell, secrets) {
        this.command = command;
        this.timeoutMs = timeoutMs;
        this.shell = shell;
        this.secrets = secrets;
    }
    async run(job, dir, signal) {
        const result = await this.shell.run(this.command, { cwd: dir, timeoutMs: this.timeoutMs, env: this.#environment(job), signal });
        const ok = result.exitCode === 0;
        return {
            ok,
            aborted: result.aborted,
            log: this.redact(result.output),
            error: ok ? null : result.timedOut ? `The agent did not finish within ${this.timeoutMs} ms` : `The agent exited with code ${result.exitCode}`,
        };
    }
    redact(text) {
        return redactSecrets(text, this.secrets.redactedSecrets());
    }
    #environment(job) {
        const env = {
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
            if (secret !== undefined)
                env[this.secrets.secretName(job.llmProvider)] = secret;
        }
        return env;
    }
}
//# sourceMappingURL=command-agent.js.map