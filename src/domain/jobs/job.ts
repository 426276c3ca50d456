import { DomainError } from '../errors/domain-error.js';

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
export const JOB_STATUSES: readonly JobStatus[] = ['queued', 'running', 'succeeded', 'failed', 'cancelled'];
export const FINISHED: readonly JobStatus[] = ['succeeded', 'failed', 'cancelled'];

export type JobSource = { readonly kind: 'api' } | { readonly kind: 'trigger'; readonly name: string } | { readonly kind: 'chat'; readonly thread: string };

/** An agent job: a prompt worked on in isolation, delivered on the branch `job/<id>`. */
export interface Job {
  readonly id: string;
  readonly job: string;
  readonly status: JobStatus;
  readonly source: JobSource;
  readonly llmProvider: string | null;
  readonly llmModel: string | null;
  readonly branch: string;
  readonly prUrl: string | null;
  readonly runUrl: string | null;
  readonly summary: string | null;
  readonly error: string | null;
  /** The agent's output, truncated. */
  readonly log: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

const ALLOWED: Readonly<Record<JobStatus, readonly JobStatus[]>> = {
  queued: ['running', 'succeeded', 'failed', 'cancelled'],
  running: ['succeeded', 'failed', 'cancelled'],
  succeeded: [],
  failed: [],
  cancelled: [],
};

export const branchOf = (id: string): string => `job/${id}`;

export const isFinished = (status: JobStatus): boolean => FINISHED.includes(status);

/** Whether `from → to` is a legal move: forward only, never out of a finished state. */
export const canMove = (from: JobStatus, to: JobStatus): boolean => ALLOWED[from].includes(to);

export interface JobChange {
  readonly status?: JobStatus;
  readonly prUrl?: string | null;
  readonly runUrl?: string | null;
  readonly summary?: string | null;
  readonly error?: string | null;
  readonly log?: string | null;
}

/**
 * Applies a change at `at`. A status move must be legal; moving to the status the job
 * already has is a no-op for the status (events may repeat). Throws `conflict` otherwise.
 */
export const applyChange = (job: Job, change: JobChange, at: Date): Job => {
  const status = change.status ?? job.status;
  if (status !== job.status && !canMove(job.status, status)) {
    throw new DomainError('conflict', `Job ${job.id} cannot move from ${job.status} to ${status}`);
  }
  return {
    ...job,
    status,
    prUrl: change.prUrl !== undefined ? change.prUrl : job.prUrl,
    runUrl: change.runUrl !== undefined ? change.runUrl : job.runUrl,
    summary: change.summary !== undefined ? change.summary : job.summary,
    error: change.error !== undefined ? change.error : job.error,
    log: change.log !== undefined ? change.log : job.log,
    updatedAt: at,
  };
};
