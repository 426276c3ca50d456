import { DomainError } from '../errors/DomainError.js';

/** What a caller asks for when creating a job; provider and model are optional overrides. */
export interface JobRequest {
  readonly job: string;
  readonly llmProvider?: string;
  readonly llmModel?: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Validates a create-job body (SPEC 4.1, 7): `job` must be a non-empty string. */
export const parseJobRequest = (body: unknown): JobRequest => {
  const fields = isRecord(body) ? body : {};
  const job = fields.job;
  if (typeof job !== 'string' || job.trim() === '') {
    throw new DomainError('invalid_input', 'Missing job field');
  }
  const optional = (name: 'llm_provider' | 'llm_model'): string | undefined => {
    const value = fields[name];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string' || value.trim() === '') {
      throw new DomainError('invalid_input', `Field ${name} must be a non-empty string`);
    }
    return value;
  };
  return { job, llmProvider: optional('llm_provider'), llmModel: optional('llm_model') };
};
