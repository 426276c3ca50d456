import { DomainError } from '../../domain/errors/DomainError.js';
import type { JobLauncher } from '../../ports/JobLauncher.js';

/** Bound until a job runner is configured: agent actions are recorded as not runnable, never dropped silently. */
export class UnavailableJobLauncher implements JobLauncher {
  async launch(): Promise<string> {
    throw new DomainError('not_configured', 'Jobs are not configured');
  }
}
