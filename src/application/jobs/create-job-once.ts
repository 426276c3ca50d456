import { branchOf } from '../../domain/jobs/job.js';
import { canonicalJson, IDEMPOTENCY_WINDOW_MS, parseIdempotencyKey } from '../../domain/jobs/idempotency.js';
import { parseJobRequest, readJobRequest } from '../../domain/jobs/job-request.js';
import { DomainError } from '../../domain/errors/domain-error.js';
import type { ApiKeyCrypto } from '../../ports/api-key-crypto.js';
import type { Clock } from '../../ports/clock.js';
import type { IdempotencyKeyStore } from '../../ports/idempotency-key-store.js';
import type { IdGenerator } from '../../ports/id-generator.js';
import type { JobRepository } from '../../ports/job-repository.js';
import type { CreateJob, CreateJobResult } from './create-job.js';

export interface CreateJobOnceInput {
  readonly body: unknown;
  /** The `Idempotency-Key` header as received (absent, once, or repeated). */
  readonly idempotencyKey: string | readonly string[] | undefined;
  /** The caller's API key id: keys are per caller. */
  readonly apiKeyId: string;
}

export interface CreateJobOnceResult extends CreateJobResult {
  /** True when the key named a job created before: nothing was created now. */
  readonly replayed: boolean;
}

/** A claim whose job is still not stored this long after it was made names no job: its claimer stopped in between. */
export const ORPHANED_CLAIM_MS = 60_000;

/**
 * POST /api/create-job with an optional `Idempotency-Key` (docs/api.md): the first request with
 * a key creates the job; the same key and body within 24 hours answers with that job and creates
 * nothing; the same key with another body is a conflict. The key is claimed, naming the new job's
 * id, before the job is created — so of concurrent duplicates only one creates it — and released
 * when the job could not be created, so the caller may retry with the same key.
 */
export class CreateJobOnce {
  constructor(
    private readonly createJob: CreateJob,
    private readonly keys: IdempotencyKeyStore,
    private readonly jobs: JobRepository,
    private readonly crypto: ApiKeyCrypto,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
  ) {}

  /**
   * The 400 that execute would throw for a body that can create no job (SPEC 4.1, 7), returned
   * at once, or undefined for a valid body: lets the HTTP edge refuse a bad request without
   * starting anything asynchronous, and without a throw (see readJobRequest).
   */
  problemWith(body: unknown): DomainError | undefined {
    const read = readJobRequest(body);
    return read instanceof DomainError ? read : undefined;
  }

  async execute(input: CreateJobOnceInput): Promise<CreateJobOnceResult> {
    parseJobRequest(input.body); // a bad body is a 400 whatever the key
    const key = parseIdempotencyKey(input.idempotencyKey);
    if (key === undefined) return { ...(await this.createJob.execute(input.body)), replayed: false };

    const now = this.clock.now();
    const claim = { scope: input.apiKeyId, key, fingerprint: this.crypto.digest(canonicalJson(input.body)), jobId: this.ids.next(), createdAt: now };
    const held = await this.keys.claim(claim, new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS));
    if (held.jobId === claim.jobId) {
      try {
        return { ...(await this.createJob.execute(input.body, { kind: 'api' }, claim.jobId)), replayed: false };
      } catch (error) {
        await this.keys.release(claim.scope, key, claim.jobId).catch(() => undefined);
        throw error;
      }
    }
    if (held.fingerprint !== claim.fingerprint) {
      throw new DomainError('conflict', `Idempotency-Key ${JSON.stringify(key)} was already used with a different request body`);
    }
    // A concurrent duplicate may still be storing the job: it is queued then.
    const job = await this.jobs.get(held.jobId);
    if (!job && now.getTime() - held.createdAt.getTime() > ORPHANED_CLAIM_MS) {
      // Its claimer stopped (killed) between the claim and the job's insert: the key names no
      // job and never will. It is released, and this request claims it anew (once: a fresh
      // claim, ours or a concurrent request's, is not orphaned).
      await this.keys.release(claim.scope, key, held.jobId);
      return this.execute(input);
    }
    return { jobId: held.jobId, branch: job?.branch ?? branchOf(held.jobId), status: job?.status ?? 'queued', replayed: true };
  }
}
