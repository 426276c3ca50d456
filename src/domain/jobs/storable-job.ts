import { storableText } from '../text/storable-text.js';
import type { Job, JobSource } from './job.js';

const storable = (value: string | null): string | null => (value === null ? null : storableText(value));

const storableSource = (source: JobSource): JobSource =>
  source.kind === 'trigger'
    ? { kind: 'trigger', name: storableText(source.name) }
    : source.kind === 'chat'
      ? { kind: 'chat', thread: storableText(source.thread) }
      : source;

/**
 * The job with every text of it made storable (each NUL and lone surrogate becomes U+FFFD, see
 * storableText): its prompt, source, provider, model, branch, URLs, summary, error and log come
 * from outside the service (a caller, an agent's output, a code host), and one a text column
 * cannot hold would fail the whole write (a job's outcome lost with it).
 */
export const storableJob = (job: Job): Job => ({
  ...job,
  job: storableText(job.job),
  source: storableSource(job.source),
  llmProvider: storable(job.llmProvider),
  llmModel: storable(job.llmModel),
  branch: storableText(job.branch),
  prUrl: storable(job.prUrl),
  runUrl: storable(job.runUrl),
  summary: storable(job.summary),
  error: storable(job.error),
  log: storable(job.log),
});
