import { branchOf } from '../../domain/jobs/job.js';
import { canonicalJson, IDEMPOTENCY_WINDOW_MS, parseIdempotencyKey } from '../../domain/jobs/idempotency.js';
import { parseJobRequest, readJobRequest } from '../../domain/jobs/job-request.js';
import { DomainError } from '../../domain/errors/domain-error.js';
/**
 * POST /api/create-job with an optional `Idempotency-Key` (docs/api.md): the first request with
 * a key creates the job; the same key and body within 24 hours answers with that job and creates
 * nothing; the same key with another body is a conflict. The key is claimed, naming the new job's
 * id, before the job is created — so of concurrent duplicates only one creates it — and released
 * when the job could not be created, so the caller may retry with the same key.
 */
export class CreateJobOnce {
    createJob;
    keys;
    jobs;
    crypto;
    ids;
    clock;
    constructor(createJob, keys, jobs, crypto, ids, clock) {
        this.createJob = createJob;
        this.keys = keys;
        this.jobs = jobs;
        this.crypto = crypto;
        this.ids = ids;
        this.clock = clock;
    }
    /**
     * The 400 that execute would throw for a body that can create no job (SPEC 4.1, 7), returned
     * at once, or undefined for a valid body: lets the HTTP edge refuse a bad request without
     * starting anything asynchronous, and without a throw (see readJobRequest).
     */
    problemWith(body) {
        const read = readJobRequest(body);
        return read instanceof DomainError ? read : undefined;
    }
    async execute(input) {
        parseJobRequest(input.body); // a bad body is a 400 whatever the key
        const key = parseIdempotencyKey(input.idempotencyKey);
        if (key === undefined)
            return { ...(await this.createJob.execute(input.body)), replayed: false };
        const now = this.clock.now();
        const claim = { scope: input.apiKeyId, key, fingerprint: this.crypto.digest(canonicalJson(input.body)), jobId: this.ids.next(), createdAt: now };
        const held = await this.keys.claim(claim, new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS));
        if (held.jobId === claim.jobId) {
            try {
                return { ...(await this.createJob.execute(input.body, { kind: 'api' }, claim.jobId)), replayed: false };
            }
            catch (error) {
                await this.keys.release(claim.scope, key, claim.jobId).catch(() => undefined);
                throw error;
            }
        }
        if (held.fingerprint !== claim.fingerprint) {
            throw new DomainError('conflict', `Idempotency-Key ${JSON.stringify(key)} was already used with a different request body`);
        }
        // A concurrent duplicate may still be storing the job: it is queued then.
        const job = await this.jobs.get(held.jobId);
        return { jobId: held.jobId, branch: job?.branch ?? branchOf(held.jobId), status: job?.status ?? 'queued', replayed: true };
    }
}
//# sourceMappingURL=create-job-once.js.map