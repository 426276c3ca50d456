import { DomainError } from '../errors/domain-error.js';

/** What a caller asks for when creating a job; provider and model are optional overrides. */
export interface JobRequest {
  readonly job: string;
  readonly llmProvider?: string;
  readonly llmModel?: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A job's texts are stored in text columns, which cannot hold U+0000: a field holding one is
 * refused, naming the field, rather than failing later as "Failed to create job".
 * (Lone surrogates never get here: the HTTP edge replaces them with U+FFFD, see docs/api.md.)
 */
export const refuseNul = (field: string, value: string): string => {
  if (value.includes('\0')) throw new DomainError('invalid_input', `Field ${field} must not contain NUL characters (U+0000)`);
  return value;
};

/** Validates a create-job body (SPEC 4.1, 7): `job` must be a non-empty string without NUL. */
export const parseJobRequest = (body: unknown): JobRequest => {
  const fields = isRecord(body) ? body : {};
  const job = fields.job;
  if (typeof job !== 'string' || job.trim() === '') {
    throw new DomainError('invalid_input', 'Missing job field');
  }
  refuseNul('job', job);
  const optional = (name: 'llm_provider' | 'llm_model'): string | undefined => {
    const value = fields[name];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string' || value.trim() === '') {
      throw new DomainError('invalid_input', `Field ${name} must be a non-empty string`);
    }
    return refuseNul(name, value);
  };
  return { job, llmProvider: optional('llm_provider'), llmModel: optional('llm_model') };
};
