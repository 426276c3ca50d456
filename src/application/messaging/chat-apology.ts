import { markdownLiteral } from '../../domain/messaging/markdown-literal.js';

export const APOLOGY = 'Sorry, I encountered an error processing your message.';

/** A job an answer's `create_job` created: what a reply names of it. */
export interface AnswerJob {
  readonly jobId: string;
  readonly branch: string;
  readonly status: string;
}

/** Job statuses after which no notice is to come. */
const FINISHED = new Set(['succeeded', 'failed', 'cancelled']);

/**
 * The reply when the answer failed (SPEC 4.4: the fixed apology), and, when its `create_job`
 * created jobs before (the model's next step erred or timed out), each of them — its id, status
 * and branch, as literal Markdown (the gateway's own line) — and how to follow it: the chat gets
 * a notice when a job it created finishes, and the model can be asked for its status. Without
 * it, the user would not know that a job runs (the task is not run again: the jobs are not
 * created twice). The conversation keeps it as the failed answer's reply (ChatAgent).
 */
export const apologyWithJobs = (jobs: readonly AnswerJob[]): string => {
  if (jobs.length === 0) return APOLOGY;
  const named = jobs.map((job) => `job ${markdownLiteral(job.jobId)} (${markdownLiteral(job.status)}, branch ${markdownLiteral(job.branch)})`);
  const one = jobs.length === 1;
  const created = one ? `The job was created all the same: ${named[0]}.` : `These jobs were created all the same: ${named.join('; ')}.`;
  const follow = jobs.some((job) => !FINISHED.has(job.status))
    ? ` You will get a message here when ${one ? 'it finishes' : 'each one finishes'}; meanwhile you can ask me for ${one ? 'its' : 'their'} status.`
    : ` You can ask me for ${one ? 'its' : 'their'} status.`;
  return `${APOLOGY}\n\n${created}${follow}`;
};
