import { parseJobRequest } from '../domain/jobs/jobRequest.js';
import { DomainError } from '../domain/errors/DomainError.js';

export interface CreateJobResult {
  readonly jobId: string;
  readonly branch: string;
  readonly status: string;
}

/**
 * Validates a job request. Running jobs is its own capability (issue 4); until it is
 * bound, a valid request is refused with `not_configured` rather than faked.
 */
export class CreateJob {
  async execute(body: unknown): Promise<CreateJobResult> {
    parseJobRequest(body);
    throw new DomainError('not_configured', 'Jobs are not configured');
  }
}
