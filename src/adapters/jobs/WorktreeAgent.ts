import type { Job } from '../../domain/jobs/Job.js';

export interface AgentOutcome {
  readonly ok: boolean;
  /** Stopped because the job was cancelled. */
  readonly aborted: boolean;
  readonly log: string;
  readonly error: string | null;
}

/** What works on a job inside its worktree: an external command or the built-in loop. */
export interface WorktreeAgent {
  run(job: Job, dir: string, signal: AbortSignal): Promise<AgentOutcome>;
}
