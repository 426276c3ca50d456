import type { Job } from '../../domain/jobs/job.js';

export interface AgentOutcome {
  readonly ok: boolean;
  /** Stopped because the job was cancelled. */
  readonly aborted: boolean;
  /** Already redacted of the secrets `redact` hides. */
  readonly log: string;
  readonly error: string | null;
}

/** What works on a job inside its worktree: an external command or the built-in loop. */
export interface WorktreeAgent {
  run(job: Job, dir: string, signal: AbortSignal): Promise<AgentOutcome>;
  /** `text` without the secret values the job had (for what the runner keeps besides the log: the summary). */
  redact(text: string): string;
}
